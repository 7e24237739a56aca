import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../../infra/local/runtime.ts';
import { overrideEnv } from '../../support/env.ts';
import { ATTEMPT_SLOTS, listDeliveryAttempts, recordDeliveryAttempt } from '#shared/db/repositories/delivery-attempts.ts';
import { sqs } from '#shared/queues/client.ts';
import { REPLAY_SOURCES, replayQueue } from '#shared/events/replay.ts';
import type { deliveryAttemptJson } from '#shared/domain/webhooks/deliveries.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';
import { expectErrorBody, runtime, seedAccount, unique, type SeededAccount } from '../../support/runtime.ts';
import { untilState } from '../../support/until.ts';

// A webhook's deliveries as an operator sees them: its recent attempts (status, latency, error, outcome)
// through the API, administrators of its account only; and the dead-lettered ones replayed — all, or since a
// time — with their ids, so a receiver that saw one deduplicates.

const run = promisify(execFile);

/** The listing's JSON, as the service renders it. */
type AttemptJson = ReturnType<typeof deliveryAttemptJson>;

describe('webhook deliveries: recent attempts and replay of dead letters', () => {
  let s: SeededAccount;
  let other: SeededAccount;
  let hook: Receiver;
  let webhookId: number;
  let conv: number;
  let restoreEnv: () => void;

  beforeAll(async () => {
    await runtime();
    // A failed delivery is dead-lettered at its first failure: its retry window is one second.
    restoreEnv = overrideEnv({ WEBHOOK_MAX_AGE_SECONDS: '1' });
    s = await seedAccount();
    other = await seedAccount();
    hook = await startReceiver();
    const created = await s.admin.api.post(`${s.base}/webhooks`, { url: hook.url, subscriptions: ['message_created'] });
    expect(created.status).toBe(200);
    webhookId = (created.body.payload?.webhook ?? created.body).id;
    const inbox = await s.admin.api.post(`${s.base}/inboxes`, { name: 'API', channel: { type: 'api' } });
    const c = await s.admin.api.post(`${s.base}/contacts`, { name: 'Ada', email: `${unique('ada')}@example.com` });
    conv = (await s.admin.api.post(`${s.base}/conversations`, { inbox_id: inbox.body.id, contact_id: c.body.payload.contact.id })).body.id;
  }, 120_000);
  afterAll(async () => {
    restoreEnv?.();
    await hook?.close();
  });

  const deliveries = async (): Promise<AttemptJson[]> => {
    const res = await s.admin.api.get(`${s.base}/webhooks/${webhookId}/deliveries`);
    expect(res.status).toBe(200);
    return res.body.payload.deliveries;
  };
  const post = async (content: string) => {
    const r = await s.admin.api.post(`${s.base}/conversations/${conv}/messages`, { content });
    expect(r.status).toBe(200);
    return r.body.id as number;
  };
  const received = (id: number) => hook.received.filter((r) => r.json?.event === 'message_created' && r.json.id === id);

  it('lists each attempt with its status, latency and error, newest first; dead letters replay with their ids, all or since a time', async () => {
    const rt = await runtime();
    hook.respond(() => ({ status: 500 }));
    const m1 = await post('refused, long ago');
    await untilState(deliveries, (d) => d.length === 1);
    const since = Date.now() + 1;
    const m2 = await post('refused, recently');
    await untilState(deliveries, (d) => d.length === 2);
    hook.respond(() => ({ status: 200 }));
    const m3 = await post('accepted');
    const list = await untilState(deliveries, (d) => d.length === 3);

    expect(list.map((d) => [d.outcome, d.status, d.error])).toEqual([
      ['delivered', 200, null],
      ['dead', 500, 'HTTP 500'],
      ['dead', 500, 'HTTP 500'],
    ]);
    for (const d of list) {
      expect(d).toMatchObject({ event: 'message_created', attempt: 1, delivery_id: expect.any(String), event_id: expect.any(String) });
      expect(Number.isInteger(d.latency_ms) && d.latency_ms >= 0).toBe(true);
      expect(new Date(d.attempted_at).toISOString()).toBe(d.attempted_at);
    }
    expect(new Set(list.map((d) => d.delivery_id)).size).toBe(3);
    expect(Date.parse(list[0].attempted_at)).toBeGreaterThanOrEqual(Date.parse(list[1].attempted_at));
    expect(received(m3)).toHaveLength(1);
    expect(received(m3)[0].headers['x-chatwoot-delivery']).toBe(list[0].delivery_id);
    const [, dead2, dead1] = list;

    // Since a time: only the delivery dead-lettered after it goes again, with the id it had.
    const { stdout } = await run(
      'npx',
      [
        'tsx',
        'scripts/replay.ts',
        'deliveries',
        '--queue-url',
        rt.queueUrls.deliveriesDlq,
        '--deliveries-queue-url',
        rt.queueUrls.deliveries,
        '--sqs-endpoint',
        rt.awsEndpoint,
        '--dynamodb-endpoint',
        rt.dynamodbEndpoint,
        '--account',
        String(s.accountId),
        '--since',
        new Date(since).toISOString(),
      ],
      { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'ERROR' } },
    );
    expect(stdout).toMatch(/^deliveries: 1 replayed, 0 still failing, [1-9]\d* left in the queue$/m);
    await untilState(
      async () => received(m2),
      (r) => r.length === 1,
    );
    expect(received(m2)[0].headers['x-chatwoot-delivery']).toBe(dead2.delivery_id);
    expect(received(m2)[0].json).toMatchObject({ id: m2, content: 'refused, recently', account: { id: s.accountId } });
    expect(received(m1)).toEqual([]);
    // The replayed attempt shows up too, under the same delivery id.
    const after = await untilState(deliveries, (d) => d.length === 4);
    expect(after[0]).toMatchObject({ delivery_id: dead2.delivery_id, outcome: 'delivered', status: 200, error: null });

    // All of this account's: the older one too; nothing of the account is left in the dead-letter queue.
    const all = await replayQueue(rt.queueUrls.deliveriesDlq, REPLAY_SOURCES.deliveries, {
      accept: (b) => JSON.parse(b).account_id === s.accountId,
    });
    expect(all).toMatchObject({ replayed: 1, failed: [] });
    await untilState(
      async () => received(m1),
      (r) => r.length === 1,
    );
    expect(received(m1)[0].headers['x-chatwoot-delivery']).toBe(dead1.delivery_id);
    const left = await sqs().send(
      new ReceiveMessageCommand({
        QueueUrl: rt.queueUrls.deliveriesDlq,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 0,
        WaitTimeSeconds: 0,
      }),
    );
    expect((left.Messages ?? []).filter((m) => JSON.parse(m.Body!).account_id === s.accountId)).toEqual([]);
    // Once each.
    for (const id of [m1, m2, m3]) expect(received(id)).toHaveLength(1);
  }, 120_000);

  it('answers administrators of the account only', async () => {
    const path = `${s.base}/webhooks/${webhookId}/deliveries`;
    expectErrorBody(await s.agent.api.get(path), 403);
    // Another account's administrator: on this account, and with this webhook's id on their own.
    expect((await other.admin.api.get(path)).status).toBe(404);
    expectErrorBody(await other.admin.api.get(`${other.base}/webhooks/${webhookId}/deliveries`), 404);
    expect((await s.admin.api.get(`${s.base}/webhooks/999999999/deliveries`)).status).toBe(404);
    expect((await s.admin.api.get(`${s.base}/webhooks/abc/deliveries`)).status).toBe(404);
  });

  it('keeps at most the last 100 attempts of a webhook, and none past their time', async () => {
    const hookId = 900_000_000 + Math.floor(Math.random() * 1000);
    const base = {
      delivery_id: 'd',
      event: 'message_created',
      event_id: 'e',
      attempt: 1,
      status: 200,
      latency_ms: 1,
      error: null,
      outcome: 'delivered' as const,
    };
    for (let i = 0; i < ATTEMPT_SLOTS + 5; i++) {
      await recordDeliveryAttempt(s.accountId, hookId, { ...base, delivery_id: `d${i}`, at: Date.now() });
    }
    const kept = await listDeliveryAttempts(s.accountId, hookId);
    expect(kept).toHaveLength(ATTEMPT_SLOTS);
    expect(kept[0].delivery_id).toBe(`d${ATTEMPT_SLOTS + 4}`);
    expect(kept.at(-1)!.delivery_id).toBe('d5');
    // A week on, they have all expired (DynamoDB deletes them later; reads skip them at once).
    expect(await listDeliveryAttempts(s.accountId, hookId, Date.now() + 8 * 86400_000)).toEqual([]);
  }, 60_000);
});
