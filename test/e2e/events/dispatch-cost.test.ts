import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as keys from '#shared/db/keys.ts';
import { getItem, withReadCache } from '#shared/db/repositories/common.ts';
import { dispatchChange, dispatchChanges } from '#shared/events/dispatch.ts';
import type { Change } from '#shared/model/change.ts';
import { PIPELINE_CACHE_TTL_MS, pipelineCache } from '#shared/events/read-cache.ts';
import { subscriptionsCache } from '#shared/realtime/broadcast.ts';
import { scopedCallRecorder } from '../../support/calls.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';
import { runtime, seedAccount, type SeededAccount } from '../../support/runtime.ts';
import { untilState } from '../../support/until.ts';

// What the dispatcher reads for a chat message (issue #15): the handler called as the events queue calls
// it, its DynamoDB calls recorded in its own async scope (the local runtime's pollers share the client),
// and what its per-container cache means for a webhook edited by another container a moment ago.

let n = 0;

/** A `message_created` change of a stored message, as the stream forwarder puts it on the events queue. */
async function messageChange(accountId: number, conversationId: number, messageId: number): Promise<Change> {
  const key = keys.message(accountId, conversationId, messageId);
  const item = await getItem<Record<string, unknown>>(key, true);
  expect(item, 'stored message').toBeDefined();
  return {
    id: `cost-test-${process.pid}-${Date.now()}-${++n}`,
    action: 'INSERT',
    type: 'message',
    ...key,
    at: Math.floor(Date.now() / 1000),
    newImage: { ...item, ...key, type: 'message' },
  };
}

const asQueueEvent = (changes: Change[]) => ({
  Records: changes.map((c, i) => ({ messageId: `${c.id}-${i}`, body: JSON.stringify(c), attributes: { MessageGroupId: c.pk } })),
});

describe('the dispatcher’s reads for message_created', () => {
  let s: SeededAccount;
  let receiver: Receiver;
  let conversationId: number;
  let webhookId: number;
  let recorder: ReturnType<typeof scopedCallRecorder>;
  let clock = 0;

  beforeAll(async () => {
    await runtime();
    s = await seedAccount();
    receiver = await startReceiver();
    recorder = scopedCallRecorder('dispatchCostRecorder');
    const hook = await s.admin.api.post(`${s.base}/webhooks`, { url: receiver.url, name: 'cost', subscriptions: ['message_created'] });
    expect(hook.status).toBe(200);
    webhookId = hook.body.id;
    const inbox = await s.admin.api.post(`${s.base}/inboxes`, { name: 'Cost', channel: { type: 'api' } });
    // A contact without an email: an API or continuity web widget contact with one also gets the reply by mail, which
    // reads the conversation's latest messages (one Query) and remembers the mail thread on the first mailed reply.
    const contact = await s.admin.api.post(`${s.base}/contacts`, {
      name: 'Cost',
      phone_number: `+1555${String(process.pid).slice(-3)}${String(Date.now()).slice(-4)}`,
    });
    const conv = await s.admin.api.post(`${s.base}/conversations`, {
      inbox_id: inbox.body.id,
      contact_id: contact.body.payload.contact.id,
    });
    expect(conv.status).toBe(200);
    conversationId = conv.body.id;
    // The caches' clock stands still: what is cached is decided by the TTL, not by how busy the machine is.
    clock = Date.now();
    pipelineCache.now = () => clock;
    subscriptionsCache.now = () => clock;
  });
  afterEach(() => {
    clock += PIPELINE_CACHE_TTL_MS + 1;
  });
  afterAll(async () => {
    pipelineCache.now = () => Date.now();
    subscriptionsCache.now = () => Date.now();
    await receiver.close();
  });

  const post = async (content: string) => {
    const m = await s.admin.api.post(`${s.base}/conversations/${conversationId}/messages`, { content });
    expect(m.status).toBe(200);
    // The runtime's own pipeline delivers it first, so nothing of it runs beside what is measured.
    await untilState(
      async () => receiver.received.filter((r) => r.json?.id === m.body.id).length,
      (k) => k > 0,
    );
    return m.body.id as number;
  };

  it('makes at most 3 DynamoDB calls for a message_created on a warm container: conversation and contact in one BatchGet, the report fact and the batch’s report log', async () => {
    const first = await post('warms the container');
    const second = await post('measured');
    const warmChange = await messageChange(s.accountId, conversationId, first);
    const warm = await recorder.during(() => dispatchChanges(asQueueEvent([warmChange]) as never));
    expect(warm.result.batchItemFailures).toEqual([]);

    const before = receiver.received.length;
    const change = await messageChange(s.accountId, conversationId, second);
    const { result, calls } = await recorder.during(() => dispatchChanges(asQueueEvent([change]) as never));
    expect(result.batchItemFailures).toEqual([]);
    expect(calls.length, calls.map((c) => `${c.command} ${c.input.slice(0, 160)}`).join('\n')).toBeLessThanOrEqual(3);
    // The report figures: the message's fact (a conditional put) and the batch's log, no transaction.
    const writes = calls.filter((c) => c.command !== 'BatchGetItemCommand');
    expect(writes.map((c) => c.command)).toEqual(['PutItemCommand', 'PutItemCommand']);
    expect(writes[0].input).toContain(`"RPTF#${s.accountId}`);
    expect(writes[1].input).toContain(`"RPTP#${s.accountId}"`);
    const reads = calls.filter((c) => c.command === 'BatchGetItemCommand');
    expect(reads).toHaveLength(1);
    // The conversation and its contact are read fresh, together; account, inbox, webhooks, participants and
    // subscriptions come from the cache.
    expect(reads[0].input).toContain(`"CONV#${s.accountId}#${conversationId}"`);
    expect(reads[0].input).toContain(`"CONTACT#${s.accountId}#`);
    expect(calls.some((c) => c.command === 'QueryCommand' || c.command === 'GetItemCommand')).toBe(false);
    // And the event still reaches the webhook, under the change's own event id.
    const got = await untilState(
      async () =>
        receiver.received
          .slice(before)
          .find(
            (r) => r.json?.id === second && String(r.headers['x-chatwoot-delivery']).startsWith(`${change.id}:message_created:webhook:`),
          ),
      (r) => !!r,
    );
    expect(got!.json).toMatchObject({ event: 'message_created', id: second, content: 'measured', conversation: { id: conversationId } });
  });

  it('uses a webhook edited by another container a moment ago only once the TTL has passed', async () => {
    const messageId = await post('ttl');
    const dispatch = async () =>
      (await withReadCache(pipelineCache, async () => dispatchChange(await messageChange(s.accountId, conversationId, messageId)))).filter(
        (d) => d.target.kind === 'webhook' && d.target.id === webhookId,
      );
    expect((await dispatch()).map((d) => d.url)).toEqual([receiver.url]);

    // Another container edits the webhook: a client of its own, so this process's caches hear nothing of it.
    const other = DynamoDBDocumentClient.from(
      new DynamoDBClient({ region: process.env.AWS_REGION ?? 'us-east-1', endpoint: (await runtime()).dynamodbEndpoint }),
    );
    const moved = `${receiver.url}moved`;
    const key = keys.webhook(s.accountId, webhookId);
    await other.send(
      new UpdateCommand({
        TableName: (await runtime()).tableName,
        Key: key,
        UpdateExpression: 'SET #u = :u',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#u': 'url' },
        ExpressionAttributeValues: { ':u': moved },
      }),
    );
    expect((await getItem<{ url: string }>(key, true))?.url).toBe(moved);

    clock += PIPELINE_CACHE_TTL_MS - 1;
    expect(
      (await dispatch()).map((d) => d.url),
      'within the TTL: the cached webhook',
    ).toEqual([receiver.url]);
    clock += 2;
    expect(
      (await dispatch()).map((d) => d.url),
      'after the TTL: the edited webhook',
    ).toEqual([moved]);
  });
});
