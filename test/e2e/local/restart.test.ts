import { request as httpRequest, type ClientRequest } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../../infra/local/net.ts';
import { client, seedAccountVia } from '../../support/http.ts';
import { killStarted, start, stop } from '../../support/npm-start.ts';
import { startReceiver, type Received } from '../../support/receiver.ts';
import { untilState } from '../../support/until.ts';

// `npm start` with DATA_DIR, stopped and started again while a webhook receiver is down: every write the
// service acknowledged before the stop — one of them still being answered when the stop signal came — has
// its event delivered once, in order, after the restart, when the receiver is back.

afterEach(killStarted);

/** A POST whose body is sent in two parts: the request is being answered (its body awaited) until `finish`. */
function slowPost(baseUrl: string, path: string, token: string, body: unknown) {
  const { hostname, port } = new URL(baseUrl);
  const payload = Buffer.from(JSON.stringify(body));
  let req!: ClientRequest;
  const answered = new Promise<{ status: number; json: any }>((resolve, reject) => {
    req = httpRequest({
      host: hostname,
      port,
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json', 'content-length': String(payload.length), api_access_token: token },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d) => (text += String(d)));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
  });
  req.write(payload.subarray(0, 5));
  return { answered, finish: () => req.end(payload.subarray(5)) };
}

const createdIds = (received: Received[], conversationId: number) =>
  received.filter((r) => r.json?.event === 'message_created' && r.json.conversation?.id === conversationId).map((r) => r.json.id as number);

describe('npm start with DATA_DIR across a restart', () => {
  it("delivers every acknowledged write's event once, in order, after the restart; a request in flight at the stop finishes", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cw-restart-'));
    const hook = await startReceiver();
    try {
      const env = {
        PORT: '0',
        DYNAMODB_PORT: String(await freePort()),
        PLATFORM_API_TOKEN: 'restart-test-platform-token-0123456789',
        DATA_DIR: dataDir,
      };
      // The receiver is down for the whole first run.
      let refused = 0;
      hook.respond(() => {
        refused++;
        return { status: 503 };
      });
      const first = await start(env);
      const s = await seedAccountVia(first.baseUrl, client(first.baseUrl, first.token), 'Restarted');
      const api = s.admin.api;
      expect((await api.post(`${s.base}/webhooks`, { url: hook.url, subscriptions: ['message_created'] })).status).toBe(200);
      const inbox = await api.post(`${s.base}/inboxes`, { name: 'API', channel: { type: 'api' } });
      const contact = await api.post(`${s.base}/contacts`, { name: 'Ada', email: 'ada-restart@example.com' });
      const conv = await api.post(`${s.base}/conversations`, { inbox_id: inbox.body.id, contact_id: contact.body.payload.contact.id });
      expect(conv.status).toBe(200);
      const path = `${s.base}/conversations/${conv.body.id}/messages`;

      const acknowledged: number[] = [];
      for (let i = 0; i < 6; i++) {
        const r = await api.post(path, { content: `before the stop ${i}` });
        expect(r.status).toBe(200);
        acknowledged.push(r.body.id);
      }
      // The receiver was tried and refused: the deliveries wait on the queue, hidden for their backoff.
      await untilState(
        async () => refused,
        (n) => n > 0,
        60_000,
      );

      // A write still being answered when the stop signal arrives (its headers in, its body not yet).
      const inFlight = slowPost(first.baseUrl, path, s.admin.token, { content: 'in flight at the stop' });
      expect((await client(first.baseUrl).get('/health')).status).toBe(200);
      const exited = stop(first, 'SIGTERM');
      // Stopping has begun: new requests are refused (the port closes or it answers 503).
      await untilState(
        () =>
          fetch(`${first.baseUrl}/health`).then(
            (r) => r.status,
            () => 0,
          ),
        (status) => status !== 200,
      );
      inFlight.finish();
      const answer = await inFlight.answered;
      expect(answer.status).toBe(200);
      expect(answer.json).toMatchObject({ content: 'in flight at the stop', id: expect.any(Number) });
      acknowledged.push(answer.json.id);
      expect(await exited).toBe(0);
      expect(createdIds(hook.received, conv.body.id)).toEqual([]);

      // Up again: the receiver, then the service on the same data folder.
      hook.respond(() => ({ status: 200 }));
      const second = await start(env);
      await untilState(
        async () => createdIds(hook.received, conv.body.id),
        (ids) => ids.length >= acknowledged.length,
        120_000,
      );
      // A last message: once it arrives, everything queued before it in the conversation has (one group, in order).
      const last = await client(second.baseUrl, s.admin.token).post(path, { content: 'after the restart' });
      expect(last.status).toBe(200);
      await untilState(
        async () => createdIds(hook.received, conv.body.id),
        (ids) => ids.includes(last.body.id),
        60_000,
      );

      expect(createdIds(hook.received, conv.body.id)).toEqual([...acknowledged, last.body.id]);
      const delivered = hook.received.filter((r) => r.json?.event === 'message_created');
      expect(delivered.map((r) => r.json.content)).toEqual([
        ...Array.from({ length: 6 }, (_, i) => `before the stop ${i}`),
        'in flight at the stop',
        'after the restart',
      ]);
      // Each delivery keeps its id across the restart (receivers deduplicate on it): all distinct.
      const ids = delivered.map((r) => r.headers['x-chatwoot-delivery']);
      expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
      expect(new Set(ids).size).toBe(ids.length);
      expect(await stop(second, 'SIGTERM')).toBe(0);
    } finally {
      await hook.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 420_000);
});
