import { ListQueuesCommand, PurgeQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Runtime } from '../infra/local/runtime.ts';
import { startReceiver } from '../test/support/receiver.ts';
import { seedAccountVia } from '../test/support/http.ts';
import type { BenchWorld } from './scenarios/types.ts';
import type { instrument } from './instrument.ts';

// The event pipeline through the local runtime: how long from an API write to the signed delivery at a
// receiver, and how many events per second the stream → queue → dispatch → deliver path carries.

export interface PipelineResult {
  writeToWebhook: { samples: number; p50: number; p95: number; max: number };
  throughput: { events: number; seconds: number; perSecond: number; writesSeconds: number; drainMs: number };
  /** The dispatch stage alone, draining a backlog of message_created changes (batches of 10, 5 side by side). */
  dispatch: { events: number; seconds: number; perSecond: number; cpuMsPerEvent: number; dynamoCallsPerEvent: number };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
const r1 = (n: number) => Math.round(n * 10) / 10;
const DISPATCH_ROUNDS = 3;

/**
 * The dispatch stage by itself: the burst's messages as a backlog of `message_created` changes handed to
 * the dispatcher's handler in queue-sized batches, as the poller (or Lambda) would, timed with its CPU
 * and its table calls. New change ids, so their deliveries are new ones.
 */
async function drainDispatch(rt: Runtime, accountId: number, conversationIds: number[], recorder: ReturnType<typeof instrument>) {
  const { dispatchChanges } = await import('#shared/events/dispatch.ts');
  const { getItem } = await import('#shared/db/repositories/common.ts');
  const keys = await import('#shared/db/keys.ts');
  const { listMessages } = await import('#shared/db/repositories/messages.ts');
  const changes: Record<string, unknown>[] = [];
  for (const id of conversationIds) {
    for (const m of await listMessages(accountId, id, { limit: 100 })) {
      const key = keys.message(accountId, id, m.id);
      const item = await getItem<Record<string, unknown>>(key);
      changes.push({
        id: `bench-${Date.now()}-${m.id}`,
        action: 'INSERT',
        type: 'message',
        ...key,
        at: Math.floor(Date.now() / 1000),
        newImage: { ...item, ...key, type: 'message' },
      });
    }
  }
  const batches: Record<string, unknown>[][] = [];
  for (let i = 0; i < changes.length; i += 10) batches.push(changes.slice(i, i + 10));
  const asEvent = (batch: Record<string, unknown>[]) => ({
    Records: batch.map((c, n) => ({ messageId: `${c.id}-${n}`, body: JSON.stringify(c), attributes: { MessageGroupId: String(c.pk) } })),
  });
  // One event of every conversation first (ids of their own), so that each conversation's contact and
  // participants are in the cache as on a dispatcher that has been running.
  const firstOf = new Map<string, Record<string, unknown>>();
  for (const c of changes) if (!firstOf.has(String(c.pk))) firstOf.set(String(c.pk), { ...c, id: `${String(c.id)}-warm` });
  const warm = [...firstOf.values()];
  for (let i = 0; i < warm.length; i += 10) await dispatchChanges(asEvent(warm.slice(i, i + 10)) as never);
  // The backlog three times over (each round with change ids of its own, so deliveries are new): a window
  // of a few seconds, not one, so that a moment's noise on a shared machine weighs less.
  const round = batches.map((b) => b.map((c) => ({ ...c })));
  for (let r = 1; r < DISPATCH_ROUNDS; r++) batches.push(...round.map((b) => b.map((c) => ({ ...c, id: `${String(c.id)}-r${r}` }))));
  const events = batches.reduce((t, b) => t + b.length, 0);
  recorder.take();
  const cpu = process.cpuUsage();
  const started = performance.now();
  const queue = [...batches];
  await Promise.all(
    Array.from({ length: 5 }, async () => {
      for (let b = queue.shift(); b; b = queue.shift()) await dispatchChanges(asEvent(b) as never);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const taken = recorder.take();
  const calls = taken.calls.length;
  if (process.env.BENCH_DEBUG) {
    const by = new Map<string, number>();
    for (const c of taken.sent) {
      const b = JSON.parse(c.body);
      const what = `${c.command} ${JSON.stringify(b.Key ?? b.KeyConditionExpression ?? Object.values(b.RequestItems ?? {}).map((r: any) => (r.Keys ?? r).length) ?? '').replace(/[0-9]+/g, 'N')} ${JSON.stringify(
        b.ExpressionAttributeValues ?? {},
      )
        .replace(/[0-9]+/g, 'N')
        .slice(0, 120)}`;
      by.set(what, (by.get(what) ?? 0) + 1);
    }
    for (const [what, n] of [...by].sort((a, b) => b[1] - a[1])) process.stdout.write(`  ${(n / events).toFixed(2)}/event  ${what}\n`);
  }
  void rt;
  return {
    events,
    seconds: r1(seconds),
    perSecond: r1(events / seconds),
    cpuMsPerEvent: r1((used.user + used.system) / 1000 / events),
    dynamoCallsPerEvent: r1(calls / events),
  };
}

/**
 * Empties every local queue while the pipeline is paused. The parts before this one measured endpoints with the
 * pipeline paused, and what they queued meanwhile (the provider webhooks' jobs, which go to a queue without the
 * stream) would otherwise be worked off now: messages in the shared bench account, whose route scenarios left
 * webhooks to hosts that never answer, so five delivery batches at a time would wait out their timeouts in front
 * of this part's own deliveries.
 */
async function discardQueued() {
  const sqs = new SQSClient({ endpoint: process.env.SQS_ENDPOINT, region: process.env.AWS_REGION });
  const { QueueUrls = [] } = await sqs.send(new ListQueuesCommand({}));
  for (const url of QueueUrls) await sqs.send(new PurgeQueueCommand({ QueueUrl: url }));
  sqs.destroy();
}

export async function benchPipeline(
  world: BenchWorld,
  rt: Runtime,
  recorder: ReturnType<typeof instrument>,
  samples = 40,
  burst = 200,
): Promise<PipelineResult> {
  await rt.pipeline.pause();
  await discardQueued();
  await rt.pipeline.resume();
  const receiver = await startReceiver();
  // An account of its own: the route scenarios left webhooks to unreachable hosts in the shared one.
  const seeded = await seedAccountVia(world.baseUrl, world.platform, world.unique('pipeline'));
  const api = seeded.admin.api;
  const base = seeded.base;
  try {
    const hook = await api.post(`${base}/webhooks`, { url: receiver.url, name: 'bench', subscriptions: ['message_created'] });
    const inbox = await api.post(`${base}/inboxes`, { name: world.unique('pipe'), channel: { type: 'api' } });
    const contact = await api.post(`${base}/contacts`, { name: 'Pipe', email: `${world.unique('pipe')}@bench.example` });
    const conv = await api.post(`${base}/conversations`, { inbox_id: inbox.body.id, contact_id: contact.body.payload.contact.id });
    if (hook.status !== 200 || conv.status !== 200) throw new Error(`pipeline setup failed: ${hook.text} ${conv.text}`);
    const path = `${base}/conversations/${conv.body.id}/messages`;

    const arrival = async (id: number, started: number) => {
      for (;;) {
        const got = receiver.received.find((r) => r.json?.id === id);
        if (got) return got.at - started;
        if (Date.now() - started > 20_000) throw new Error(`message ${id} never reached the receiver`);
        await new Promise((r) => setTimeout(r, 2));
      }
    };

    // Sequential writes: latency from the start of the API call to the delivery's arrival.
    const latencies: number[] = [];
    for (let i = 0; i < samples + 3; i++) {
      const started = Date.now();
      const m = await api.post(path, { content: `latency ${i}` });
      const ms = await arrival(m.body.id, started);
      if (i >= 3) latencies.push(ms);
    }

    // A burst over many conversations: events delivered per second, end to end.
    const convs = await Promise.all(
      Array.from({ length: 20 }, () =>
        api.post(`${base}/conversations`, { inbox_id: inbox.body.id, contact_id: contact.body.payload.contact.id }),
      ),
    );
    const before = receiver.received.length;
    const started = Date.now();
    const ids: number[] = [];
    for (let i = 0; i < burst; i += 20) {
      const batch = await Promise.all(
        convs.map((c, n) => api.post(`${base}/conversations/${c.body.id}/messages`, { content: `burst ${i + n}` })),
      );
      ids.push(...batch.map((b) => b.body.id));
    }
    const written = Date.now();
    const want = new Set(ids);
    while (receiver.received.slice(before).filter((r) => want.has(r.json?.id)).length < ids.length) {
      if (Date.now() - started > 120_000) throw new Error('burst did not drain');
      await new Promise((r) => setTimeout(r, 20));
    }
    const seconds = (Date.now() - started) / 1000;
    // The pipeline stops while the dispatch stage is measured alone: its own polling would share the CPU.
    await rt.pipeline.pause();
    const dispatch = await drainDispatch(
      rt,
      seeded.accountId,
      convs.map((c) => c.body.id as number),
      recorder,
    );
    return {
      dispatch,
      writeToWebhook: { samples: latencies.length, p50: pct(latencies, 50), p95: pct(latencies, 95), max: Math.max(...latencies) },
      throughput: {
        events: ids.length,
        seconds: r1(seconds),
        perSecond: r1(ids.length / seconds),
        writesSeconds: r1((written - started) / 1000),
        drainMs: Date.now() - written,
      },
    };
  } finally {
    await receiver.close();
    await rt.pipeline.pause();
  }
}

export function pipelineMarkdown(p: PipelineResult): string {
  return [
    '## Event pipeline',
    '',
    'Through the local runtime (same stream, queue and handler code as deployed; pollers stand in for the event source mappings).',
    '',
    '| measure | value |',
    '|---|---|',
    `| write → signed \`message_created\` at a receiver on 127.0.0.1, p50 / p95 / max (${p.writeToWebhook.samples} sequential writes) | ${p.writeToWebhook.p50} / ${p.writeToWebhook.p95} / ${p.writeToWebhook.max} ms |`,
    `| events delivered end to end, burst of ${p.throughput.events} messages over 20 conversations (API writes and pipeline in one process) | ${p.throughput.perSecond} events/s (${p.throughput.seconds} s) |`,
    `| of which: the API writes themselves / the pipeline draining after the last write | ${p.throughput.writesSeconds} s / ${p.throughput.drainMs} ms |`,
    `| dispatch stage alone: a backlog of ${p.dispatch.events} \`message_created\` changes (the burst's, ${DISPATCH_ROUNDS} times over) in batches of 10, 5 batches side by side (warm caches) | ${p.dispatch.perSecond} events/s (${p.dispatch.seconds} s), ${p.dispatch.cpuMsPerEvent} ms CPU and ${p.dispatch.dynamoCallsPerEvent} DynamoDB calls per event |`,
    '',
  ].join('\n');
}
