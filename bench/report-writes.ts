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
  };
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
  ].join('\n');
}
