import { invocationTallies, type Tally } from '../infra/local/invocations.ts';
import type { Runtime } from '../infra/local/runtime.ts';
import { functionName, routes as routeTable } from '../infra/routes.ts';
import { PRICES } from './cable-cost.ts';
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
/** Messages sent one at a time after the burst, for the functions' durations. */
const SEQUENTIAL = 20;
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
  /**
   * Each function that ran: its invocations a message in the burst (batching as at volume), and its milliseconds a
   * message, measured with one message at a time (wall time in the local runtime, nothing else running).
   */
  functions: { name: string; invocationsPerMessage: number; msPerMessage: number }[];
}

/** Lambda's memory for every function of the stack (infra/constructs/chatwoot-service.ts). */
const LAMBDA_GB = 0.5;

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
    const before = invocationTallies();
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
    const delivered = async (want: Set<number>, what: string) => {
      const started = Date.now();
      while (receiver.received.filter((r) => want.has(r.json?.id)).length < want.size) {
        if (Date.now() - started > 120_000) throw new Error(`${what} did not drain`);
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    await delivered(new Set(ids), 'heat burst');
    const calls = [...(await quiet(recorder))];
    observeAwsCalls(undefined);
    const ran = ranSince(before);
    // Durations: the burst's wall times overlap twenty requests in one process, so each function's time per message
    // is measured apart, one message at a time, each delivered before the next is sent.
    const aloneBefore = invocationTallies();
    for (let n = 0; n < SEQUENTIAL; n++) {
      const m = await api.post(`${base}/conversations/${convs[n % convs.length]}/messages`, {
        content: `heat alone ${n}`,
        message_type: n % 2 ? 'outgoing' : 'incoming',
      });
      if (m.status !== 200) throw new Error(`heat message: ${m.status} ${m.text}`);
      await delivered(new Set([m.body.id as number]), 'a message alone');
    }
    await quiet(recorder);
    const alone = ranSince(aloneBefore);
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
      functions: [...ran]
        .sort((a, b) => b[1].invocations - a[1].invocations)
        .map(([name, t]) => ({
          name,
          invocationsPerMessage: r2(t.invocations / ids.length),
          msPerMessage: r2((alone.get(name)?.ms ?? 0) / SEQUENTIAL),
        })),
    };
  } finally {
    observeAwsCalls(undefined);
    await receiver.close();
    await rt.pipeline.pause();
  }
}

/** Each function's invocations and time since `before`, those that ran only. */
function ranSince(before: Map<string, Tally>): Map<string, Tally> {
  const out = new Map<string, Tally>();
  for (const [name, t] of invocationTallies()) {
    const b = before.get(name) ?? { invocations: 0, ms: 0 };
    if (t.invocations > b.invocations) out.set(name, { invocations: t.invocations - b.invocations, ms: t.ms - b.ms });
  }
  return out;
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

export interface BillLine {
  component: string;
  measured: string;
  perMillion: number;
}

/**
 * The whole bill of a million chat messages, from what the burst measured: every write and read (table and
 * indexes, API and pipeline), every queue request, every function invocation (requests and GB-seconds at the
 * local runtime's wall time), the API request; and the `q` index seal, measured by the counts part, when given.
 */
const ROUTE_FUNCTIONS = new Set(routeTable.map(functionName));

export function wholeBill(h: HeatResult, sealWcu?: number): BillLine[] {
  const fn = (match: (name: string) => boolean) => h.functions.filter((f) => match(f.name));
  const lambda = (fs: HeatResult['functions']) =>
    fs.reduce(
      (sum, f) =>
        sum +
        f.invocationsPerMessage * PRICES.lambdaRequestPerMillion +
        LAMBDA_GB * (f.msPerMessage / 1000) * PRICES.lambdaGbSecondArm * 1e6,
      0,
    );
  const describe = (fs: HeatResult['functions']) =>
    fs.map((f) => `${f.name} ${f.invocationsPerMessage} invocations, ${f.msPerMessage} ms`).join('; ') || 'none';
  const route = (name: string) => ROUTE_FUNCTIONS.has(name);
  const routes = fn(route);
  const pipeline = fn((n) => !route(n));
  const requests = routes.reduce((n, f) => n + f.invocationsPerMessage, 0);
  const lines: BillLine[] = [
    {
      component: 'DynamoDB writes, API and pipeline',
      measured: `${h.wcuPerMessage} WCU`,
      perMillion: h.wcuPerMessage * PRICES.ddbWritePerMillion,
    },
    ...(sealWcu !== undefined
      ? [{ component: '`q` index seal (counts part)', measured: `${sealWcu} WCU`, perMillion: sealWcu * PRICES.ddbWritePerMillion }]
      : []),
    {
      component: 'DynamoDB reads, API and pipeline',
      measured: `${h.rcuPerMessage} RCU`,
      perMillion: h.rcuPerMessage * PRICES.ddbReadPerMillion,
    },
    { component: 'Lambda, the routes', measured: describe(routes), perMillion: lambda(routes) },
    { component: 'Lambda, the pipeline', measured: describe(pipeline), perMillion: lambda(pipeline) },
    { component: 'API Gateway (HTTP API)', measured: `${r2(requests)} requests`, perMillion: requests * PRICES.httpApiRequestPerMillion },
    {
      component: 'SQS (FIFO price)',
      measured: `${h.sqs.perMessage} requests`,
      perMillion: h.sqs.perMessage * PRICES.sqsFifoRequestPerMillion,
    },
  ];
  return [...lines, { component: '**all in**', measured: '', perMillion: lines.reduce((t, l) => t + l.perMillion, 0) }];
}

export function wholeBillMarkdown(h: HeatResult, sealWcu?: number): string[] {
  if (!h.functions?.length) return [];
  return [
    '## The whole bill per million messages',
    '',
    'From the partition-heat burst (its mix: half incoming, half agent replies, one webhook; invocations and queue requests as',
    'batched at volume), us-east-1 list prices: DynamoDB on demand, API Gateway HTTP API, SQS at the FIFO price, Lambda arm64 at',
    "512 MB: its requests from the burst's invocations, its GB-seconds from each function's wall time a message in the local",
    `runtime with one message at a time (${SEQUENTIAL} messages after the burst; an estimate of Lambda's billed duration: DynamoDB`,
    'Local answers in about the time DynamoDB does within a region). Storage, logs and data transfer are not in it.',
    '',
    '| component | measured per message | $ per million messages |',
    '|---|---|---|',
    ...wholeBill(h, sealWcu).map((l) => `| ${l.component} | ${l.measured} | ${l.perMillion.toFixed(2)} |`),
    '',
  ];
}
