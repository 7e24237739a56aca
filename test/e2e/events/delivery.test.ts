import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { enqueueDeliveries, type Delivery } from '#shared/queues/deliveries.ts';
import { sqs } from '#shared/queues/client.ts';
import { runtime, unique } from '../../support/runtime.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';
import { until } from '../../support/until.ts';

// The deliveries queue → deliver function → real receivers on 127.0.0.1, through the local runtime's pollers.

const SECRET = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;

// An account no test makes (ids count up from 1 in each worker's table): its webhook's attempt log is this file's own.
const ACCOUNT = 999_999_999;

function delivery(url: string, n: number, extra: Partial<Delivery> = {}): Delivery {
  const id = unique('evt');
  return {
    id: `${id}:webhook:1`,
    event: 'message_created',
    event_id: id,
    url,
    secret: SECRET,
    body: JSON.stringify({ event: 'message_created', n }),
    target: { kind: 'webhook', id: 1 },
    account_id: ACCOUNT,
    scope: extra.scope ?? `CONV#${ACCOUNT}#1`,
    created_at: Date.now(),
    ...extra,
  };
}

/** How a Chatwoot receiver verifies (post-4.10 docs): HMAC-SHA256 of "<timestamp>.<raw body>". */
function chatwootValid(headers: Record<string, unknown>, body: string, secret: string) {
  const expected = `sha256=${createHmac('sha256', secret).update(`${headers['x-chatwoot-timestamp']}.${body}`).digest('hex')}`;
  return headers['x-chatwoot-signature'] === expected;
}

describe('webhook deliveries', () => {
  let a: Receiver;
  let b: Receiver;
  beforeAll(async () => {
    await runtime();
    a = await startReceiver();
    b = await startReceiver();
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('signs every delivery with Chatwoot’s and Standard Webhooks’ headers', async () => {
    const d = delivery(a.url, 1);
    await enqueueDeliveries([d]);
    const [got] = await a.waitFor(1);
    expect(got.body).toBe(d.body);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['x-chatwoot-delivery']).toBe(d.id);
    expect(chatwootValid(got.headers, got.body, SECRET)).toBe(true);
    expect(chatwootValid(got.headers, got.body, 'whsec_wrong')).toBe(false);
    const verified = new Webhook(SECRET).verify(got.body, {
      'webhook-id': String(got.headers['webhook-id']),
      'webhook-timestamp': String(got.headers['webhook-timestamp']),
      'webhook-signature': String(got.headers['webhook-signature']),
    });
    expect(verified).toEqual({ event: 'message_created', n: 1 });
    expect(Math.abs(Number(got.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
  });

  it('retries a receiver that is down, with one stable id, acknowledged once, in order', async () => {
    const r = await startReceiver();
    try {
      let failuresLeft = 3;
      r.respond(() => (failuresLeft-- > 0 ? { status: 503 } : { status: 200 }));
      const scope = unique('CONV#');
      const ds = [1, 2, 3, 4].map((n) => delivery(r.url, n, { scope }));
      await enqueueDeliveries(ds);
      const got = await r.waitFor(4, 40_000);
      expect(got.map((g) => g.json.n)).toEqual([1, 2, 3, 4]);
      expect(got.map((g) => g.headers['x-chatwoot-delivery'])).toEqual(ds.map((d) => d.id));
      // Each is acknowledged (2xx) exactly once.
      await new Promise((res) => setTimeout(res, 1500));
      expect(r.received).toHaveLength(4);
    } finally {
      await r.close();
    }
  }, 60_000);

  it('does not let a slow or dead receiver delay another', async () => {
    const slow = await startReceiver();
    let release!: () => void;
    const busy = new Promise<void>((r) => (release = r));
    try {
      // The slow receiver holds its answer until the fast one has been served: order, not a stopwatch.
      slow.respond(() => ({ status: 200, until: busy }));
      await enqueueDeliveries([delivery(slow.url, 1, { scope: 'S1' }), delivery('http://127.0.0.1:1/dead', 2, { scope: 'S2' })]);
      await enqueueDeliveries([delivery(b.url, 3, { scope: 'S3' })]);
      await b.waitFor(1);
      expect(slow.received).toHaveLength(0);
      release();
      await slow.waitFor(1, 30_000);
    } finally {
      release();
      await slow.close();
    }
  }, 60_000);

  it('treats a redirect as a failure and does not follow it', async () => {
    const r = await startReceiver();
    try {
      let redirects = 1;
      r.respond(() => (redirects-- > 0 ? { status: 302, headers: { location: b.url } } : { status: 200 }));
      const before = b.received.length;
      await enqueueDeliveries([delivery(r.url, 9, { scope: unique('R') })]);
      const [got] = await r.waitFor(1, 20_000);
      expect(got.json.n).toBe(9);
      expect(b.received.length).toBe(before);
    } finally {
      await r.close();
    }
  }, 30_000);

  it('dead-letters deliveries older than the retry window', async () => {
    const rt = await runtime();
    const old = delivery('http://127.0.0.1:1/never', 7, { created_at: Date.now() - 4 * 24 * 3600 * 1000, scope: unique('D') });
    await enqueueDeliveries([old]);
    // Each read waits up to a second for a message (a long poll), so the reads follow each other at once.
    const found = await until(
      async () => {
        const out = await sqs().send(
          new ReceiveMessageCommand({
            QueueUrl: rt.queueUrls.deliveriesDlq,
            WaitTimeSeconds: 1,
            MaxNumberOfMessages: 10,
            MessageAttributeNames: ['All'],
          }),
        );
        return out.Messages?.map((m) => m.Body ?? '').find((body) => body.includes(old.id));
      },
      { what: 'the delivery on the dead-letter queue', timeoutMs: 15_000, everyMs: 0 },
    );
    expect(JSON.parse(found)).toMatchObject({ id: old.id, url: old.url });
  }, 30_000);
});
