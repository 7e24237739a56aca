import { randomInt } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSealed } from '#shared/crypto/tokens.ts';
import { db, tableName } from '#shared/db/client.ts';
import * as keys from '#shared/db/keys.ts';
import { overrideEnv } from '../../support/env.ts';
import { PNG, startFakeProvider, type FakeProvider } from '../../support/providers.ts';
import { client, runtime, seedAccount, type SeededAccount } from '../../support/runtime.ts';
import { until, untilState } from '../../support/until.ts';

// Bandwidth SMS end to end against a fake Bandwidth on 127.0.0.1: Bandwidth's documented callback arrays (every
// element read), MMS media downloaded with the inbox's API credentials (SMIL skipped), replies with Chatwoot's JSON,
// and delivery receipts that apply (Chatwoot's never do as written).

describe('Bandwidth SMS channel', () => {
  let bw: FakeProvider;
  let s: SeededAccount;
  let base: string;
  let restoreEnv: () => void;
  let inbox: any;
  let number: string;
  let sent = 0;

  const post = (elements: unknown[], headers: Record<string, string> = {}) =>
    client(base).post(`/webhooks/sms/${number.slice(1)}`, JSON.stringify(elements), { 'content-type': 'application/json', ...headers });
  const messagesOf = async (id: number) => (await s.admin.api.get(`${s.base}/conversations/${id}/messages`)).body.payload as any[];
  const received = (from: string, id: string, text: string, media: string[] = []) => ({
    type: 'message-received',
    time: new Date().toISOString(),
    description: 'Incoming message received',
    to: number,
    message: {
      id,
      time: new Date().toISOString(),
      to: [number],
      from,
      text,
      applicationId: 'app-1',
      media,
      owner: number,
      direction: 'in',
      segmentCount: 1,
    },
  });

  beforeAll(async () => {
    base = (await runtime()).baseUrl;
    bw = await startFakeProvider();
    const authorized = (h: unknown) => h === `Basic ${Buffer.from('bw-key:bw-secret').toString('base64')}`;
    bw.on('GET', /\/media\//, (req) =>
      authorized(req.headers.authorization) ? { body: PNG, headers: { 'content-type': 'image/png' } } : { status: 401 },
    );
    bw.on('POST', /^\/users\/[\w-]+\/messages$/, (req) =>
      req.json?.text === 'refuse me'
        ? { status: 400, json: { type: 'request-validation', description: "'to' must be a valid phone number" } }
        : {
            status: 202,
            json: { id: `1664${++sent}bw`, owner: number, applicationId: 'app-1', to: [req.json?.to], from: number, text: req.json?.text },
          },
    );
    restoreEnv = overrideEnv({ BANDWIDTH_API_BASE_URL: bw.url });
    s = await seedAccount();
    number = `+1560${randomInt(1_000_000, 9_999_999)}`;
    const res = await s.admin.api.post(`${s.base}/inboxes`, {
      name: 'SMS',
      channel: {
        type: 'sms',
        phone_number: number,
        provider_config: { account_id: 'acct-9', application_id: 'app-1', api_key: 'bw-key', api_secret: 'bw-secret' },
      },
    });
    expect(res.status).toBe(200);
    inbox = res.body;
    expect(inbox).toMatchObject({
      channel_type: 'Channel::Sms',
      provider: 'default',
      callback_webhook_url: `${base}/webhooks/sms/${number.slice(1)}`,
    });
    // Nothing is called at Bandwidth on creation (as Chatwoot).
    expect(bw.requests).toHaveLength(0);
  }, 120_000);

  afterAll(async () => {
    restoreEnv?.();
    await bw?.close();
  });

  it('stores every received message of a callback, an MMS with its image (not its SMIL), once', async () => {
    const from = `+1561${randomInt(1_000_000, 9_999_999)}`;
    const a = `1661${randomInt(1e9)}a`;
    const b = `1661${randomInt(1e9)}b`;
    const payload = [
      received(from, a, 'hi there'),
      received(from, b, 'see the photo', [
        `${bw.url}/users/acct-9/media/${b}/0/photo.png`,
        `${bw.url}/users/acct-9/media/${b}/1/part.smil`,
      ]),
    ];
    expect((await post(payload)).status).toBe(200);
    expect((await post(payload)).status).toBe(200);
    const c = await until(
      async () => (await s.admin.api.get(`${s.base}/conversations?inbox_id=${inbox.id}&status=all`)).body.data.payload[0],
    );
    expect(c.meta.sender).toMatchObject({ phone_number: from });
    const ms = await untilState(
      () => messagesOf(c.id),
      (list) => list.filter((m) => m.message_type === 0).length >= 2,
    );
    expect(ms.filter((m) => m.message_type === 0).map((m) => [m.source_id, m.content])).toEqual([
      [a, 'hi there'],
      [b, 'see the photo'],
    ]);
    expect(ms.find((m) => m.source_id === b).attachments).toMatchObject([{ file_type: 'image', file_size: PNG.length }]);
    expect(bw.requests.some((r) => r.path.endsWith('.smil'))).toBe(false);
  });

  it('sends the API credentials with a media URL only to Bandwidth’s host, never to another server a callback names', async () => {
    const elsewhere = await startFakeProvider();
    try {
      elsewhere.on('GET', /^\/mms\//, () => ({ body: PNG, headers: { 'content-type': 'image/png' } }));
      const from = `+1563${randomInt(1_000_000, 9_999_999)}`;
      const id = `1663${randomInt(1e9)}`;
      expect(
        (await post([received(from, id, 'two files', [`${elsewhere.url}/mms/a.png`, `${bw.url}/users/acct-9/media/${id}/0/b.png`])]))
          .status,
      ).toBe(200);
      const [foreign] = await elsewhere.waitFor((r) => r.path === '/mms/a.png');
      expect(foreign.headers.authorization).toBeUndefined();
      const [own] = await bw.waitFor((r) => r.path === `/users/acct-9/media/${id}/0/b.png`);
      expect(own.headers.authorization).toBe(`Basic ${Buffer.from('bw-key:bw-secret').toString('base64')}`);
      const c = await until(async () =>
        ((await s.admin.api.get(`${s.base}/conversations?inbox_id=${inbox.id}&status=all`)).body.data.payload as any[]).find(
          (x) => x.meta.sender.phone_number === from,
        ),
      );
      const m = await untilState(
        async () => (await messagesOf(c.id)).find((x) => x.source_id === id),
        (x) => x?.attachments?.length === 2,
      );
      expect(m.attachments.map((a: any) => a.file_size)).toEqual([PNG.length, PNG.length]);
    } finally {
      await elsewhere.close();
    }
  });

  it('sends a reply with Chatwoot’s JSON, then applies delivered and failed receipts; a 400 fails with Bandwidth’s description', async () => {
    const from = `+1562${randomInt(1_000_000, 9_999_999)}`;
    await post([received(from, `1662${randomInt(1e9)}`, 'question')]);
    const c = await until(async () =>
      ((await s.admin.api.get(`${s.base}/conversations?inbox_id=${inbox.id}&status=all`)).body.data.payload as any[]).find(
        (x) => x.meta.sender.phone_number === from,
      ),
    );
    const reply = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'An **answer**' });
    const [req] = await bw.waitFor((r) => r.method === 'POST' && r.json?.to === from);
    expect(req.path).toBe('/users/acct-9/messages');
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from('bw-key:bw-secret').toString('base64')}`);
    expect(req.json).toEqual({ to: from, from: number, text: 'An answer', applicationId: 'app-1' });
    const saved = await untilState(
      () => messagesOf(c.id),
      (ms) => !!ms.find((m) => m.id === reply.body.id)?.source_id,
    ).then((ms) => ms.find((m) => m.id === reply.body.id));
    // Bandwidth's receipts name the customer in `to`: the inbox is the path's number.
    const receipt = (type: string, extra: Record<string, unknown> = {}) => ({
      type,
      time: new Date().toISOString(),
      description: 'ok',
      to: from,
      message: { id: saved.source_id, owner: number, applicationId: 'app-1', direction: 'out', to: [from], from: number, text: '' },
      ...extra,
    });
    await post([receipt('message-delivered')]);
    await untilState(
      () => messagesOf(c.id),
      (ms) => ms.find((m) => m.id === reply.body.id)?.status === 'delivered',
    );

    const second = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'second' });
    const two = await untilState(
      () => messagesOf(c.id),
      (ms) => !!ms.find((m) => m.id === second.body.id)?.source_id,
    ).then((ms) => ms.find((m) => m.id === second.body.id));
    await post([
      {
        ...receipt('message-failed', { errorCode: 4405, description: 'rejected-unallocated-from-number' }),
        message: { id: two.source_id },
      },
    ]);
    const failed = await untilState(
      () => messagesOf(c.id),
      (ms) => ms.find((m) => m.id === second.body.id)?.status === 'failed',
    );
    expect(failed.find((m) => m.id === second.body.id).content_attributes.external_error).toBe('4405 - rejected-unallocated-from-number');

    const refused = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'refuse me' });
    const r = await untilState(
      () => messagesOf(c.id),
      (ms) => ms.find((m) => m.id === refused.body.id)?.status === 'failed',
    );
    expect(r.find((m) => m.id === refused.body.id).content_attributes.external_error).toBe("'to' must be a valid phone number");
  }, 90_000);

  it('seals its secrets at rest, names a sender by its number, and with basic auth configured refuses a callback without it', async () => {
    const raw = (await db().send(new GetCommand({ TableName: tableName(), Key: keys.inbox(s.accountId, inbox.id) }))).Item!;
    expect(isSealed(String(raw.provider_config.api_secret))).toBe(true);
    expect(JSON.stringify(raw)).not.toContain('bw-secret');

    // No profile name in SMS: the contact is named by its number in international form (Chatwoot's formatted number).
    const from = `+1415${randomInt(2_000_000, 9_999_999)}`;
    await post([received(from, `1662${randomInt(1e9)}`, 'who am I?')]);
    const conversationOf = (inboxId: number, sender: string) =>
      until(async () =>
        ((await s.admin.api.get(`${s.base}/conversations?inbox_id=${inboxId}&status=all`)).body.data.payload as any[]).find(
          (c) => c.meta.sender.phone_number === sender,
        ),
      );
    expect((await conversationOf(inbox.id, from)).meta.sender.name).toBe(`+1 415 ${from.slice(5, 8)} ${from.slice(8)}`);

    // Basic auth set in the Bandwidth application: a callback without it is 401 and stores nothing.
    const guardedNumber = `+1560${randomInt(1_000_000, 9_999_999)}`;
    const guarded = await s.admin.api.post(`${s.base}/inboxes`, {
      name: 'Guarded SMS',
      channel: {
        type: 'sms',
        phone_number: guardedNumber,
        provider_config: {
          account_id: 'acct-9',
          application_id: 'app-1',
          api_key: 'bw-key',
          api_secret: 'bw-secret',
          webhook_username: 'bw-hook',
          webhook_password: 'hook-pass',
        },
      },
    });
    expect(guarded.status).toBe(200);
    const sender = `+1562${randomInt(1_000_000, 9_999_999)}`;
    const element = (id: string, text: string) => ({ ...received(sender, id, text), to: guardedNumber });
    const callback = (id: string, text: string, headers: Record<string, string>) =>
      client(base).post(`/webhooks/sms/${guardedNumber.slice(1)}`, JSON.stringify([element(id, text)]), {
        'content-type': 'application/json',
        ...headers,
      });
    const forged = `1663${randomInt(1e9)}`;
    expect((await callback(forged, 'forged', {})).status).toBe(401);
    expect((await callback(forged, 'forged', { authorization: `Basic ${Buffer.from('bw-hook:wrong').toString('base64')}` })).status).toBe(
      401,
    );
    const genuine = `1663${randomInt(1e9)}`;
    const ok = await callback(genuine, 'genuine', { authorization: `Basic ${Buffer.from('bw-hook:hook-pass').toString('base64')}` });
    expect(ok.status).toBe(200);
    const c = await conversationOf(guarded.body.id, sender);
    const ms = await untilState(
      () => messagesOf(c.id),
      (list) => list.some((m) => m.source_id === genuine),
    );
    expect(ms.filter((m) => m.message_type === 0).map((m) => m.content)).toEqual(['genuine']);
  });
});
