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
  /** Per-row report routes on an account whose inboxes are all active (benchReportRows). */
  rows?: ReportRowsResult;
}

export interface ReportRowsResult {
  inboxes: number;
  days: number;
  conversations: number;
  /** RCU and DynamoDB calls of one call of each route (the median of five), over the last `days` local days at +5:30. */
  routes: { route: string; rcu: number; calls: number }[];
}

const REPORT_KEY = /"(RPTF|RPT|RPTC|RPTL|RPTP|RPTE|REVT)#/;
/**
 * A fold's writes: aggregate items, unattended items, reporting events listing items, the account's fold item (logs
 * are `L#…` in the same partition).
 */
const isFold = (body: string) => /"pk":\{"S":"(RPT|RPTL|RPTE)#/.test(body) || /"pk":\{"S":"RPTP#[^"]*"\},"sk":\{"S":"F"/.test(body);
const r2 = (n: number) => Math.round(n * 100) / 100;

/** Where each stream shard was last read to (its last sequence number), and the shards read to their end. */
interface StreamCursor {
  after: Map<string, string>;
  ended: Set<string>;
}

/**
 * The stream's changes that carry events, written since the cursor's last read (the whole stream at first): each shard
 * is read on from its last sequence number, not from its start, so a call costs what was written since the last one
 * however long the bench has run.
 */
async function streamTail(rt: Runtime, cursor: StreamCursor) {
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
    const id = shard.ShardId!;
    if (cursor.ended.has(id)) continue;
    const after = cursor.after.get(id);
    let iterator = (
      await streams.send(
        new GetShardIteratorCommand({
          StreamArn: streamArn,
          ShardId: id,
          ...(after ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after } : { ShardIteratorType: 'TRIM_HORIZON' }),
        }),
      )
    ).ShardIterator;
    while (iterator) {
      const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
      for (const r of page.Records ?? []) {
        cursor.after.set(id, r.dynamodb!.SequenceNumber!);
        const change = recordChange(toLambdaRecord(r, streamArn, cfg.region));
        if (eventsOf(change).length) out.push(change);
      }
      // A closed shard read to its end has no next iterator.
      if (!page.NextShardIterator && shard.SequenceNumberRange?.EndingSequenceNumber) cursor.ended.add(id);
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
  const cursor: StreamCursor = { after: new Map(), ended: new Set() };
  const mine = (c: { newImage?: Record<string, unknown>; oldImage?: Record<string, unknown> }) =>
    Number((c.newImage ?? c.oldImage)?.account_id) === seeded.accountId;
  /** Dispatches the queued changes in batches; the report write units, those of folds apart. */
  const dispatch = async (batchSize: number, after?: () => Promise<unknown>) => {
    const changes = (await streamTail(rt, cursor)).filter(mine);
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

/**
 * Per-row report routes (one row per inbox) on an account of `inboxes` API inboxes all active every day: about
 * 10,000 conversations over `days` days, each with three incoming messages and three replies, a first response,
 * a reply time and a resolution, at seeded random quarter hours, recorded with the pipeline's writer (the facts
 * as the pipeline would write them, a day's figures of an inbox per fact). The routes are asked for the last
 * `days` days in +5:30 from local midnight to local midnight (as the dashboard asks), so both ends cut a UTC day.
 */
export async function benchReportRows(
  world: BenchWorld,
  recorder: ReturnType<typeof instrument>,
  inboxes = 30,
  days = 30,
): Promise<ReportRowsResult> {
  const { recordFact } = await import('#shared/db/repositories/report-logs.ts');
  const { foldAll } = await import('#shared/domain/reports/fold.ts');
  const keys = await import('#shared/db/keys.ts');
  const seeded = await seedAccountVia(world.baseUrl, world.platform, world.unique('report-rows'));
  const { api } = seeded.admin;
  const ids: number[] = [];
  for (let i = 0; i < inboxes; i++) {
    const res = await api.post(`${seeded.base}/inboxes`, { name: world.unique(`rows-${i}`), channel: { type: 'api' } });
    if (res.status !== 200) throw new Error(`report rows inbox: ${res.status} ${res.text}`);
    ids.push(res.body.id as number);
  }
  const DAY = 86_400;
  const perDay = Math.round(10_000 / days / inboxes);
  let x = 2026;
  const next = (n: number) => {
    x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
    return (x >>> 8) % n;
  };
  const today = Math.floor(Date.now() / 1000 / DAY) * DAY;
  for (const inbox of ids) {
    const series = keys.reportSeries.inbox(inbox);
    for (let d = today - (days + 1) * DAY; d <= today; d += DAY) {
      const contributions = [];
      for (let c = 0; c < perDay; c++) {
        const at = d + next(96) * 900;
        const fr = 60 + next(7_200);
        contributions.push(
          { series, at, figures: { cc: 1, im: 3, st_resolved: 1 } },
          {
            series,
            at: Math.min(d + DAY - 900, at + 900),
            figures: { om: 3, fr_n: 1, fr_s: fr, fr_b: fr, fd0: 1, rt_n: 1, rt_s: 300, rt_b: 0 },
          },
          { series, at: Math.min(d + DAY - 900, at + 1_800), figures: { rs_n: 1, rs_s: 1_800, rs_b: 0 } },
        );
      }
      await recordFact({
        fact: {
          id: `bench:rows:${seeded.accountId}:${inbox}:${d}`,
          account_id: seeded.accountId,
          conversation_id: null,
          contributions,
          created_at: d,
        },
      });
    }
  }
  // Seeded facts are logged like the pipeline's: folded now, so the reads measured are those of folded aggregates.
  await foldAll(seeded.accountId);
  // Local midnights at +5:30: 18:30 UTC the day before.
  const until = today - 5.5 * 3_600;
  const q = `since=${until - days * DAY}&until=${until}&timezone_offset=5.5`;
  const v2 = `/api/v2/accounts/${seeded.accountId}`;
  const paths = [
    `summary_reports/inbox?${q}`,
    `summary_reports/inbox?${q}&business_hours=true`,
    `reports/inboxes?${q}`,
    `reports/first_response_time_distribution?${q}`,
    `reports/outgoing_messages_count?group_by=inbox&${q}`,
    `summary_reports/channel?${q}`,
  ];
  const routes: ReportRowsResult['routes'] = [];
  for (const path of paths) {
    const runs: { rcu: number; calls: number }[] = [];
    for (let i = 0; i < 5; i++) {
      recorder.take();
      const res = await api.get(`${v2}/${path}`);
      if (res.status !== 200) throw new Error(`report rows ${path}: ${res.status} ${res.text}`);
      const { calls } = recorder.take();
      runs.push({ rcu: r2(calls.reduce((t, c) => t + c.rcu, 0)), calls: calls.length });
    }
    runs.sort((a, b) => a.rcu - b.rcu);
    const extra = ['business_hours', 'group_by'].filter((k) => path.includes(`${k}=`));
    routes.push({ route: `GET /api/v2/accounts/{id}/${path.split('?')[0]}${extra.length ? ` (${extra.join(', ')})` : ''}`, ...runs[2]! });
  }
  return { inboxes, days, conversations: perDay * inboxes * days, routes };
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
    ...(r.rows
      ? [
          `Per-row report routes on an account of ${r.rows.inboxes} API inboxes all active every day (${r.rows.conversations} conversations over`,
          `${r.rows.days} days, each with messages, a first response, a reply time and a resolution; \`benchReportRows\`), asked for the last`,
          `${r.rows.days} local days in +5:30 (both ends cut a UTC day): one call, the median of five.`,
          '',
          '| route | RCU / call | DynamoDB calls |',
          '|---|---|---|',
          ...r.rows.routes.map((x) => `| \`${x.route}\` | ${x.rcu} | ${x.calls} |`),
          '',
        ]
      : []),
  ].join('\n');
}
