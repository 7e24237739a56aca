import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Runtime } from '../infra/local/runtime.ts';
import { seedAccountVia } from '../test/support/http.ts';
import type { BenchWorld } from './scenarios/types.ts';
import type { instrument } from './instrument.ts';

// What the report aggregates cost in the pipeline (they are written by the dispatcher, never on the
// request path): chat messages posted through the API with the pipeline paused, their stream changes
// (those the forwarder would queue) handed to the dispatcher's handler — one change per batch ("alone")
// or in queue-sized batches of ten in stream order ("at volume") — and the write units of the report
// items (facts, aggregates, reporting events, report memory, unattended counts) billed by AWS's rules.

export interface ReportWritesResult {
  conversations: number;
  /** WCU per chat message, each change alone in its batch (no fold: logs wait for one): incoming, reply (reply_time), mean. */
  alone: { incoming: number; reply: number; mean: number };
  /** At volume (batches of ten changes, folds by the fold policy's volume trigger): each kind with its share of the folds. */
  batched: { incoming: number; reply: number; mean: number };
  /** The first agent reply of each conversation (first_response), alone and at volume (its share of folds included). */
  firstReply: { alone: number; batched: number };
  /** The volume run: messages, folds, what the folds wrote, and what a message pays without them. */
  volume: {
    messages: number;
    folds: number;
    /** Write units of all folds, and per fold. */
    foldWcu: number;
    perFold: number;
    /** Per message: the folds' share, and incoming / reply without it (facts, reporting events, logs, report memory). */
    foldShare: number;
    incoming: number;
    reply: number;
    /** Facts pending that start a fold, and the age that does (minutes). */
    trigger: { facts: number; minutes: number };
  };
}

const REPORT_KEY = /"(RPTF|RPT|RPTC|RPTL|RPTP|REVT)#/;
/** A fold's writes: aggregate items, unattended items, the account's fold item (logs are `L#…` in the same partition). */
const isFold = (body: string) => /"pk":\{"S":"(RPT|RPTL)#/.test(body) || /"pk":\{"S":"RPTP#[^"]*"\},"sk":\{"S":"F"/.test(body);
const r2 = (n: number) => Math.round(n * 100) / 100;

async function streamTail(rt: Runtime, seen: Set<string>) {
  const { recordChange } = await import('#shared/db/stream.ts');
  const { eventsOf } = await import('#shared/domain/events/domain-events.ts');
  const { toLambdaRecord } = await import('#shared/db/stream.ts');
  const cfg = { region: 'us-east-1', endpoint: rt.dynamodbEndpoint };
  const table = await new DynamoDBClient(cfg).send(new DescribeTableCommand({ TableName: rt.tableName }));
  const streamArn = table.Table!.LatestStreamArn!;
  const streams = new DynamoDBStreamsClient(cfg);
  const desc = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
  const out: ReturnType<typeof recordChange>[] = [];
  for (const shard of desc.StreamDescription?.Shards ?? []) {
    let iterator = (
      await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.ShardId!, ShardIteratorType: 'TRIM_HORIZON' }))
    ).ShardIterator;
    while (iterator) {
      const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
      for (const r of page.Records ?? []) {
        if (seen.has(r.eventID!)) continue;
        seen.add(r.eventID!);
        const change = recordChange(toLambdaRecord(r, streamArn, cfg.region));
        if (eventsOf(change).length) out.push(change);
      }
      if (!page.Records?.length) break;
      iterator = page.NextShardIterator;
    }
  }
  return out;
}

export async function benchReportWrites(
  world: BenchWorld,
  rt: Runtime,
  recorder: ReturnType<typeof instrument>,
  conversations = 10,
  rounds = Number(process.env.BENCH_REPORT_ROUNDS ?? 20),
): Promise<ReportWritesResult> {
  const { dispatchChanges } = await import('#shared/events/dispatch.ts');
  await rt.pipeline.pause();
  const seeded = await seedAccountVia(world.baseUrl, world.platform, world.unique('report-writes'));
  const { api } = seeded.admin;
  const base = seeded.base;
  const inbox = await api.post(`${base}/inboxes`, { name: world.unique('rw'), channel: { type: 'api' } });
  const contact = await api.post(`${base}/contacts`, { name: 'Report writes', email: `${world.unique('rw')}@bench.example` });
  const convs: number[] = [];
  for (let i = 0; i < conversations; i++) {
    const c = await api.post(`${base}/conversations`, {
      inbox_id: inbox.body.id,
      contact_id: contact.body.payload.contact.id,
      assignee_id: seeded.admin.id,
    });
    if (c.status !== 200) throw new Error(`report writes setup: ${c.status} ${c.text}`);
    convs.push(c.body.id);
  }
  const seen = new Set<string>();
  const mine = (c: { newImage?: Record<string, unknown>; oldImage?: Record<string, unknown> }) =>
    Number((c.newImage ?? c.oldImage)?.account_id) === seeded.accountId;
  /** Dispatches the queued changes in batches; the report write units, those of folds apart. */
  const dispatch = async (batchSize: number, after?: () => Promise<unknown>) => {
    const changes = (await streamTail(rt, seen)).filter(mine);
    recorder.take();
    for (let i = 0; i < changes.length; i += batchSize) {
      const batch = changes.slice(i, i + batchSize);
      const out = await dispatchChanges({
        Records: batch.map((c, n) => ({ messageId: `${c.id}-${n}`, body: JSON.stringify(c), attributes: { MessageGroupId: c.pk } })),
      } as never);
      if (out.batchItemFailures.length) throw new Error('report writes: a batch failed');
    }
    if (after) await after();
    const { calls } = recorder.take();
    const reported = calls.filter((c) => c.wcu && REPORT_KEY.test(c.body ?? ''));
    if (process.env.BENCH_DEBUG) {
      for (const c of reported) {
        process.stdout.write(
          `${c.command} ${c.wcu} ${[...(c.body ?? '').matchAll(/"(?:pk|sk)":\{"S":"([^"]+)"/g)].map((m) => m[1]).join(' ')}\n`,
        );
      }
      process.stdout.write('--\n');
    }
    const sum = (list: typeof calls) => list.reduce((t, c) => t + c.wcu, 0);
    const fold = reported.filter((c) => isFold(c.body ?? ''));
    return {
      wcu: sum(reported.filter((c) => !isFold(c.body ?? ''))),
      fold: sum(fold),
      // A fold claims the account's fold item once (its claim names its last log).
      folds: fold.filter((c) => (c.body ?? '').includes('"run_end"') && (c.body ?? '').includes('if_not_exists')).length,
    };
  };
  let folded = { wcu: 0, folds: 0 };
  const round = async (kind: 'incoming' | 'reply', batchSize: number, after?: () => Promise<unknown>) => {
    for (const id of convs) {
      const res = await api.post(
        `${base}/conversations/${id}/messages`,
        kind === 'incoming' ? { content: 'question', message_type: 'incoming' } : { content: 'answer' },
      );
      if (res.status !== 200) throw new Error(`report writes message: ${res.status} ${res.text}`);
    }
    // Messages a second apart from the conversation's last activity, as real chats are.
    const out = await dispatch(batchSize, after);
    folded = { wcu: folded.wcu + out.fold, folds: folded.folds + out.folds };
    return r2(out.wcu / convs.length);
  };
  const pause = () => new Promise((r) => setTimeout(r, 1100));
  await dispatch(10);
  await round('incoming', 1);
  const firstAlone = await round('reply', 1);
  await pause();
  const inAlone = await round('incoming', 1);
  await pause();
  const replyAlone = await round('reply', 1);
  // At volume: new conversations, rounds of one message each in batches of ten changes, folds as the policy
  // says. The bench is the only writer of its account, so the fold's margin (which waits out dispatchers still
  // writing older logs) is off: logs fold by volume at once instead of half a minute later.
  const fresh: number[] = [];
  for (let i = 0; i < conversations; i++) {
    const c = await api.post(`${base}/conversations`, {
      inbox_id: inbox.body.id,
      contact_id: contact.body.payload.contact.id,
      assignee_id: seeded.admin.id,
    });
    fresh.push(c.body.id);
  }
  const { FOLD_POLICY, foldAll } = await import('#shared/domain/reports/fold.ts');
  const margin = FOLD_POLICY.marginMs;
  FOLD_POLICY.marginMs = 0;
  try {
    await foldAll(seeded.accountId);
    await dispatch(10);
    convs.splice(0, convs.length, ...fresh);
    folded = { wcu: 0, folds: 0 };
    const incoming: number[] = [];
    const replies: number[] = [];
    await round('incoming', 10);
    const firstBatched = await round('reply', 10);
    for (let i = 0; i < rounds; i++) {
      await pause();
      incoming.push(await round('incoming', 10));
      await pause();
      // The last round folds what is still pending, so every message's share is counted.
      replies.push(await round('reply', 10, i === rounds - 1 ? () => foldAll(seeded.accountId) : undefined));
    }
    const messages = (rounds + 1) * 2 * convs.length;
    const share = folded.wcu / messages;
    const mean = (list: number[]) => list.reduce((a, b) => a + b, 0) / list.length;
    const [inV, replyV] = [mean(incoming), mean(replies)];
    return {
      conversations,
      alone: { incoming: inAlone, reply: replyAlone, mean: r2((inAlone + replyAlone) / 2) },
      batched: { incoming: r2(inV + share), reply: r2(replyV + share), mean: r2((inV + replyV) / 2 + share) },
      firstReply: { alone: firstAlone, batched: r2(firstBatched + share) },
      volume: {
        messages,
        folds: folded.folds,
        foldWcu: r2(folded.wcu),
        perFold: r2(folded.wcu / Math.max(1, folded.folds)),
        foldShare: r2(share),
        incoming: r2(inV),
        reply: r2(replyV),
        trigger: { facts: FOLD_POLICY.facts, minutes: FOLD_POLICY.ageMs / 60_000 },
      },
    };
  } finally {
    FOLD_POLICY.marginMs = margin;
  }
}

export function reportWritesMarkdown(r: ReportWritesResult): string {
  const v = r.volume;
  const facts = (v.incoming + v.reply) / 2;
  // An account slower than the volume trigger folds on age: its messages of `trigger.minutes` share one fold.
  const slow = (perMinute: number) => r2(facts + v.perFold / (perMinute * v.trigger.minutes));
  return [
    '## Report writes',
    '',
    `What the report figures cost in the pipeline per chat message (\`bench/report-writes.ts\`): ${r.conversations} conversations of one API inbox, one`,
    'message per conversation per round, posted through the API, their queued changes dispatched alone (one change per batch) and at volume',
    `(batches of ten changes in stream order, as the events queue hands them out; ${v.messages} messages, half replies), with the folds the`,
    `policy makes (one when ${v.trigger.facts} facts are pending, or the oldest log is ${v.trigger.minutes} minutes old). Write units of the report items only, by AWS's rules.`,
    '',
    '| WCU per chat message | alone (no fold) | at volume (batches of 10, folds included) |',
    '|---|---|---|',
    `| incoming message | ${r.alone.incoming} | ${r.batched.incoming} |`,
    `| agent reply (\`reply_time\`) | ${r.alone.reply} | ${r.batched.reply} |`,
    `| mean of the two (half incoming, half replies) | ${r.alone.mean} | ${r.batched.mean} |`,
    `| a conversation's first agent reply (\`first_response\`) | ${r.firstReply.alone} | ${r.firstReply.batched} |`,
    '',
    `At volume: ${v.folds} folds for ${v.messages} messages, ${v.perFold} WCU each (${v.foldWcu} in all): ${v.foldShare} a message; without it an incoming`,
    `message writes ${v.incoming} and a reply ${v.reply} (facts, reporting events, logs). An account busy enough to fold on volume`,
    `(≥ ${r2((v.trigger.facts / 1.5 / v.trigger.minutes) * 1)} messages a minute) pays the volume figure; a slower one folds on age, its messages of ${v.trigger.minutes} minutes sharing`,
    `one fold: ${slow(2.3)} WCU a message at 2.3 messages a minute (10,000 conversations a month), ${slow(1)} at one a minute.`,
    '',
  ].join('\n');
}
