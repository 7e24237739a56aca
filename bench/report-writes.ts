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
  /** WCU per chat message: incoming, agent reply (reply_time), and their mean. */
  alone: { incoming: number; reply: number; mean: number };
  batched: { incoming: number; reply: number; mean: number };
  /** The first agent reply of each conversation (first_response), alone and batched. */
  firstReply: { alone: number; batched: number };
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

const REPORT_KEY = /"(RPTF|RPT|RPTC|RPTL|REVT)#/;
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
  const dispatch = async (batchSize: number) => {
    const changes = (await streamTail(rt, seen)).filter(mine);
    recorder.take();
    for (let i = 0; i < changes.length; i += batchSize) {
      const batch = changes.slice(i, i + batchSize);
      const out = await dispatchChanges({
        Records: batch.map((c, n) => ({ messageId: `${c.id}-${n}`, body: JSON.stringify(c), attributes: { MessageGroupId: c.pk } })),
      } as never);
      if (out.batchItemFailures.length) throw new Error('report writes: a batch failed');
    }
    const { calls } = recorder.take();
    if (process.env.BENCH_DEBUG) {
      for (const c of calls.filter((x) => x.wcu && REPORT_KEY.test(x.body ?? ''))) {
        process.stdout.write(
          `${c.command} ${c.wcu} ${[...(c.body ?? '').matchAll(/"(?:pk|sk)":\{"S":"([^"]+)"/g)].map((m) => m[1]).join(' ')}\n`,
        );
      }
      process.stdout.write('--\n');
    }
    return calls.filter((c) => c.wcu && REPORT_KEY.test(c.body ?? '')).reduce((t, c) => t + c.wcu, 0);
  };
  const round = async (kind: 'incoming' | 'reply', batchSize: number) => {
    for (const id of convs) {
      const res = await api.post(
        `${base}/conversations/${id}/messages`,
        kind === 'incoming' ? { content: 'question', message_type: 'incoming' } : { content: 'answer' },
      );
      if (res.status !== 200) throw new Error(`report writes message: ${res.status} ${res.text}`);
    }
    // Messages a second apart from the conversation's last activity, as real chats are.
    return r2((await dispatch(batchSize)) / convs.length);
  };
  const pause = () => new Promise((r) => setTimeout(r, 1100));
  await dispatch(10);
  await round('incoming', 1);
  const firstAlone = await round('reply', 1);
  await pause();
  const inAlone = await round('incoming', 1);
  await pause();
  const replyAlone = await round('reply', 1);
  // At volume: the same, in batches of ten changes. New conversations for the first replies.
  const fresh: number[] = [];
  for (let i = 0; i < conversations; i++) {
    const c = await api.post(`${base}/conversations`, {
      inbox_id: inbox.body.id,
      contact_id: contact.body.payload.contact.id,
      assignee_id: seeded.admin.id,
    });
    fresh.push(c.body.id);
  }
  await dispatch(10);
  convs.splice(0, convs.length, ...fresh);
  await round('incoming', 10);
  const firstBatched = await round('reply', 10);
  await pause();
  const inBatched = await round('incoming', 10);
  await pause();
  const replyBatched = await round('reply', 10);
  return {
    conversations,
    alone: { incoming: inAlone, reply: replyAlone, mean: r2((inAlone + replyAlone) / 2) },
    batched: { incoming: inBatched, reply: replyBatched, mean: r2((inBatched + replyBatched) / 2) },
    firstReply: { alone: firstAlone, batched: firstBatched },
    rows: await benchReportRows(world, recorder),
  };
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
  const { recordFact } = await import('#shared/db/repositories/reports.ts');
  const { reportLayout } = await import('#shared/domain/reports/pipeline.ts');
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
  const layout = await reportLayout(seeded.accountId);
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
        ...layout,
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
  // Local midnights at +5:30: 18:30 UTC the day before.
  const until = today - 5.5 * 3_600;
  const q = `since=${until - days * DAY}&until=${until}&timezone_offset=5.5`;
  const v2 = `/api/v2/accounts/${seeded.accountId}`;
  const paths = [`summary_reports/inbox?${q}`, `reports/inboxes?${q}`, `reports/first_response_time_distribution?${q}`];
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
    routes.push({ route: `GET /api/v2/accounts/{id}/${path.split('?')[0]}`, ...runs[2]! });
  }
  return { inboxes, days, conversations: perDay * inboxes * days, routes };
}

export function reportWritesMarkdown(r: ReportWritesResult): string {
  return [
    '## Report writes',
    '',
    `What the report aggregates write in the pipeline per chat message (\`bench/report-writes.ts\`): ${r.conversations} conversations of one API inbox, one`,
    'message per conversation per round, posted through the API, their queued changes dispatched alone (one change per batch) and at volume',
    "(batches of ten changes in stream order, as the events queue hands them out). Write units of the report items only, by AWS's rules.",
    '',
    '| WCU per chat message | alone | at volume (batches of 10) |',
    '|---|---|---|',
    `| incoming message | ${r.alone.incoming} | ${r.batched.incoming} |`,
    `| agent reply (\`reply_time\`) | ${r.alone.reply} | ${r.batched.reply} |`,
    `| mean of the two (half incoming, half replies) | ${r.alone.mean} | ${r.batched.mean} |`,
    `| a conversation's first agent reply (\`first_response\`) | ${r.firstReply.alone} | ${r.firstReply.batched} |`,
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
