import type { Runtime } from '../infra/local/runtime.ts';
import { observeAwsCalls } from '#shared/aws/observe.ts';
import { startReceiver } from '../test/support/receiver.ts';
import { seedAccountVia } from '../test/support/http.ts';
import type { BenchWorld } from './scenarios/types.ts';
import type { instrument } from './instrument.ts';

// Partition heat (`BENCH_PARTS=heat`): a burst of chat messages in one account (one inbox, the worst case for the
// inbox's keys; half incoming, half agent replies; one webhook on `message_created`), replayed through the API
// and the whole pipeline against DynamoDB Local, with a meter of the write units each partition key (table or
// index) took. Write units per message on a key, times a tenant's messages per second, is that key's load:
// DynamoDB serves at most 1,000 WCU/s per partition key (docs/cost.md#partition-heat).

const MESSAGES = Number(process.env.BENCH_HEAT_MESSAGES ?? 200);
const CONVERSATIONS = 20;
const RATE = 500;
const LIMIT = 1000;

export interface HeatRow {
  /** The key with its ids generalised (`<n>`), and the index it belongs to when not the table. */
  key: string;
  wcuPerMessage: number;
  /** WCU/s on this key at RATE messages a second in the account. */
  atRate: number;
}

export interface HeatResult {
  messages: number;
  rate: number;
  wcuPerMessage: number;
  /** Read units a message took, API and pipeline. */
  rcuPerMessage: number;
  /** DynamoDB calls a message took, API and pipeline. */
  callsPerMessage: number;
  /** Write units a message by kind of key (its first segment; an index's attribute name first). */
  byKind: { kind: string; wcuPerMessage: number }[];
  hottest: HeatRow[];
  /**
   * SQS requests a message took (billed per request, a batch of up to ten being one): sends and deletes counted as
   * made, receives taken as one per deleted batch (Lambda's pollers receive a batch, run the function, delete it;
   * their empty long polls are a fixed cost per queue, not per message).
   */
  sqs: { sendPerMessage: number; receivePerMessage: number; deletePerMessage: number; otherPerMessage: number; perMessage: number };
}

const r2 = (n: number) => Math.round(n * 100) / 100;
/** The key with its ids generalised; an index key keeps its index's attribute name (`gsi3pk:…`). */
const general = (key: string) => {
  const at = key.indexOf(':');
  return at < 0 ? key.replace(/\d+/g, '<n>') : `${key.slice(0, at)}:${key.slice(at + 1).replace(/\d+/g, '<n>')}`;
};

export async function benchHeat(world: BenchWorld, rt: Runtime, recorder: ReturnType<typeof instrument>): Promise<HeatResult> {
  await rt.pipeline.resume();
  const receiver = await startReceiver();
  const seeded = await seedAccountVia(world.baseUrl, world.platform, world.unique('heat'));
  const { api } = seeded.admin;
  const base = seeded.base;
  const sqsCalls = new Map<string, number>();
  try {
    const hook = await api.post(`${base}/webhooks`, { url: receiver.url, name: 'heat', subscriptions: ['message_created'] });
    const inbox = await api.post(`${base}/inboxes`, { name: world.unique('heat'), channel: { type: 'api' } });
    const contact = await api.post(`${base}/contacts`, { name: 'Heat', email: `${world.unique('heat')}@bench.example` });
    if (hook.status !== 200 || inbox.status !== 200 || contact.status !== 200)
      throw new Error(`heat setup failed: ${hook.text} ${inbox.text}`);
    const convs: number[] = [];
    for (let i = 0; i < CONVERSATIONS; i++) {
      const c = await api.post(`${base}/conversations`, { inbox_id: inbox.body.id, contact_id: contact.body.payload.contact.id });
      convs.push(c.body.id);
    }
    // Let the setup's own pipeline work finish before the meter starts.
    await quiet(recorder);
    recorder.take();
    observeAwsCalls((call) => {
      if (call.client === 'SQSClient') sqsCalls.set(call.command, (sqsCalls.get(call.command) ?? 0) + 1);
    });
    const ids: number[] = [];
    for (let i = 0; i < MESSAGES; i += CONVERSATIONS) {
      const batch = await Promise.all(
        convs.map((c, n) =>
          api.post(`${base}/conversations/${c}/messages`, {
            content: `heat ${i + n}`,
            message_type: (i / CONVERSATIONS + n) % 2 ? 'outgoing' : 'incoming',
          }),
        ),
      );
      for (const b of batch) if (b.status !== 200) throw new Error(`heat message: ${b.status} ${b.text}`);
      ids.push(...batch.map((b) => b.body.id as number));
    }
    const want = new Set(ids);
    const started = Date.now();
    while (receiver.received.filter((r) => want.has(r.json?.id)).length < ids.length) {
      if (Date.now() - started > 120_000) throw new Error('heat burst did not drain');
      await new Promise((r) => setTimeout(r, 20));
    }
    const calls = [...(await quiet(recorder))];
    observeAwsCalls(undefined);
    const count = (...commands: string[]) => commands.reduce((n, c) => n + (sqsCalls.get(c) ?? 0), 0);
    const sends = count('SendMessageCommand', 'SendMessageBatchCommand');
    const deletes = count('DeleteMessageCommand', 'DeleteMessageBatchCommand');
    const other = count('ChangeMessageVisibilityCommand', 'ChangeMessageVisibilityBatchCommand');
    const byKey = new Map<string, number>();
    const byKind = new Map<string, number>();
    let total = 0;
    for (const c of calls) {
      for (const p of c.partitions ?? []) {
        byKey.set(p.partition, (byKey.get(p.partition) ?? 0) + p.units);
        const kind = general(p.partition).split('#')[0];
        byKind.set(kind, (byKind.get(kind) ?? 0) + p.units);
        total += p.units;
      }
    }
    const per = (n: number) => r2(n / ids.length);
    const hottest = [...byKey]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 12)
      .map(([key, units]) => ({
        key: general(key),
        wcuPerMessage: r2(units / ids.length),
        atRate: Math.round((units / ids.length) * RATE),
      }));
    return {
      messages: ids.length,
      rate: RATE,
      wcuPerMessage: per(total),
      rcuPerMessage: per(calls.reduce((t, c) => t + c.rcu, 0)),
      callsPerMessage: per(calls.length),
      byKind: [...byKind].sort((a, b) => b[1] - a[1]).map(([kind, units]) => ({ kind, wcuPerMessage: per(units) })),
      hottest,
      sqs: {
        sendPerMessage: per(sends),
        receivePerMessage: per(deletes),
        deletePerMessage: per(deletes),
        otherPerMessage: per(other),
        perMessage: per(sends + 2 * deletes + other),
      },
    };
  } finally {
    observeAwsCalls(undefined);
    await receiver.close();
    await rt.pipeline.pause();
  }
}

/** Waits until the pipeline has made no DynamoDB call for a second; answers every call recorded meanwhile. */
async function quiet(recorder: ReturnType<typeof instrument>) {
  const all = [];
  for (let still = 0; still < 5; ) {
    await new Promise((r) => setTimeout(r, 200));
    const { calls } = recorder.take();
    all.push(...calls);
    still = calls.length ? 0 : still + 1;
  }
  return all;
}

export function heatMarkdown(h: HeatResult): string[] {
  if (!h.hottest?.length) return [];
  return [
    '## Partition heat',
    '',
    `A burst of ${h.messages} chat messages over ${CONVERSATIONS} conversations of one inbox of one account (half incoming, half agent replies; one`,
    'webhook on `message_created`), through the API and the whole pipeline (`bench/heat.ts`); every write metered by the partition key it',
    `took its units on (table \`pk\`, or an index's key). ${h.wcuPerMessage} write units a message in all. The hottest keys, their units per`,
    `message and what they would take at ${h.rate} messages a second in the account (DynamoDB's limit: ${LIMIT.toLocaleString('en-US')} WCU/s per key):`,
    '',
    `| key | WCU per message | WCU/s at ${h.rate} msg/s | |`,
    '|---|---|---|---|',
    ...h.hottest.map(
      (r) => `| \`${r.key}\` | ${r.wcuPerMessage} | ${r.atRate.toLocaleString('en-US')} | ${r.atRate > LIMIT ? '**over**' : ''} |`,
    ),
    '',
    `SQS requests a message took in the burst (a batch of up to ten is one request): ${h.sqs.sendPerMessage} sends, ~${h.sqs.receivePerMessage}`,
    `receives (one per deleted batch), ${h.sqs.deletePerMessage} deletes and ${h.sqs.otherPerMessage} visibility changes: **${h.sqs.perMessage}** in all`,
    `(${h.rcuPerMessage} read units and ${h.callsPerMessage} DynamoDB calls a message, API and pipeline).`,
    '',
  ];
}
