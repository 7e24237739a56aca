import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { DynamoDBRecord } from 'aws-lambda';
import { ReceiveMessageCommand, type SendMessageBatchCommandInput, type SendMessageBatchCommandOutput } from '@aws-sdk/client-sqs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../../infra/local/runtime.ts';
import { sqs } from '#shared/queues/client.ts';
import { noticedObjects, readFailureObject, recordsOf, type StreamFailure } from '#shared/events/stream-failures.ts';
import { runtime, seedAccount, unique, type SeededAccount } from '../../support/runtime.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';
import { until } from '../../support/until.ts';

// One record that cannot be forwarded costs no other record its event: the events queue refuses one
// change for good; its neighbours (same conversation, other conversation) are delivered, the failed
// record lands alone, with its content, in the failure bucket (announced on the failure queue, as the
// deployed bucket's notification does), and `npm run replay` delivers it.

const run = promisify(execFile);
const INJECTED = 'inject-events-queue-failure';

/** The events queue refuses (per entry, as SQS does) every message change whose body holds the marker. */
function refuseMessagesContaining(marker: string) {
  sqs().middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'SendMessageBatchCommand') return next(args);
      const input = args.input as SendMessageBatchCommandInput;
      const refused = (input.Entries ?? []).filter((e) => e.MessageBody?.includes(marker) && e.MessageBody.includes('"type":"message"'));
      if (!refused.length) return next(args);
      const kept = (input.Entries ?? []).filter((e) => !refused.includes(e));
      const out = kept.length
        ? await next({ ...args, input: { ...input, Entries: kept } })
        : { output: { Successful: [], $metadata: {} }, response: {} };
      const output = out.output as SendMessageBatchCommandOutput;
      output.Failed = [
        ...(output.Failed ?? []),
        ...refused.map((e) => ({ Id: e.Id!, SenderFault: true, Code: 'InvalidMessageContents', Message: 'refused by the test' })),
      ];
      return out as never;
    },
    { step: 'initialize', name: INJECTED },
  );
}

/** The failure objects the failure queue announces, read without taking the entries (visibility 0). */
async function peekFailures(queueUrl: string): Promise<(StreamFailure & { bucket: string; key: string })[]> {
  const out = await sqs().send(
    new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 0, WaitTimeSeconds: 0 }),
  );
  const named = (out.Messages ?? []).flatMap((m) => noticedObjects(m.Body!) ?? []);
  const found = await Promise.all(named.map(async (o) => ({ ...(await readFailureObject(o.bucket, o.key).catch(() => undefined)), ...o })));
  return found.filter((f): f is StreamFailure & { bucket: string; key: string } => !!f.DDBStreamBatchInfo);
}

const created = (h: Receiver, id: number) => h.received.filter((r) => r.json?.event === 'message_created' && r.json.id === id);

// How long a wait of this file lasts before it fails.
const WAIT = { timeoutMs: 60_000 };

describe('a record that keeps failing goes alone to the failure queue and can be replayed', () => {
  let s: SeededAccount;
  let hook: Receiver;
  let convs: number[];

  beforeAll(async () => {
    await runtime();
    s = await seedAccount();
    hook = await startReceiver();
    expect((await s.admin.api.post(`${s.base}/webhooks`, { url: hook.url, subscriptions: ['message_created'] })).status).toBe(200);
    const inbox = await s.admin.api.post(`${s.base}/inboxes`, { name: 'API', channel: { type: 'api' } });
    const c = await s.admin.api.post(`${s.base}/contacts`, { name: 'Ada', email: `${unique('ada')}@example.com` });
    convs = [];
    for (let i = 0; i < 2; i++) {
      convs.push(
        (await s.admin.api.post(`${s.base}/conversations`, { inbox_id: inbox.body.id, contact_id: c.body.payload.contact.id })).body.id,
      );
    }
  }, 180_000);
  afterEach(() => {
    sqs().middlewareStack.remove(INJECTED);
  });
  afterAll(async () => {
    await hook?.close();
  });

  it('delivers the neighbours, parks the failed record with its content, and the replay command delivers it', async () => {
    const rt = await runtime();
    const marker = unique('never-forwarded-');
    refuseMessagesContaining(marker);

    const contents = ['before 👍', `the one ${marker}`, 'after', 'other conversation', 'other again \ufffe'];
    const sent = await Promise.all(
      contents.map((content, i) => s.admin.api.post(`${s.base}/conversations/${convs[i < 3 ? 0 : 1]}/messages`, { content })),
    );
    for (const r of sent) expect(r.status).toBe(200);
    const [before, failing, after, other1, other2] = sent.map((r) => r.body.id as number);

    // The neighbours arrive, the later message of the same conversation included.
    await until(() => [before, after, other1, other2].every((id) => created(hook, id).length === 1), WAIT);
    const failures = await until(async () => {
      const all = (await peekFailures(rt.queueUrls.streamFailures)).filter((f) => JSON.stringify(f).includes(marker));
      return all.length ? all : undefined;
    }, WAIT);
    expect(created(hook, failing)).toEqual([]);

    // Alone, with its content, in the shape of Lambda's S3 on-failure object (the invocation as `payload`).
    expect(failures).toHaveLength(1);
    const [failure] = failures;
    expect(failure.key).toMatch(/^aws\/lambda\/[^/]+\/[^/]+\/\d{4}\/\d{2}\/\d{2}\//);
    expect(failure.requestContext.condition).toBe('RetryAttemptsExhausted');
    expect(failure.DDBStreamBatchInfo).toMatchObject({ batchSize: 1, shardId: expect.any(String), streamArn: expect.any(String) });
    expect(typeof failure.payload).toBe('string');
    const payload = JSON.parse(failure.payload as string) as { Records: DynamoDBRecord[] };
    expect(payload.Records).toHaveLength(1);
    const record = payload.Records[0];
    expect(failure.DDBStreamBatchInfo.startSequenceNumber).toBe(record.dynamodb!.SequenceNumber);
    expect(record.dynamodb!.NewImage!.content).toEqual({ S: `the one ${marker}` });
    expect(Number(record.dynamodb!.NewImage!.id.N)).toBe(failing);

    // An entry without its payload (an SQS destination names the shard position only) is re-read from the stream.
    const reread = await recordsOf({ ...failure, payload: undefined });
    expect(reread.map((r) => r.eventID)).toEqual([record.eventID]);
    expect(reread[0].dynamodb!.NewImage).toEqual(record.dynamodb!.NewImage);

    // The queue takes it again: the replay command forwards it.
    const args = [
      'tsx',
      'scripts/replay.ts',
      'stream-failures',
      '--queue-url',
      rt.queueUrls.streamFailures,
      '--events-queue-url',
      rt.queueUrls.events,
      '--sqs-endpoint',
      rt.awsEndpoint,
      '--dynamodb-endpoint',
      rt.dynamodbEndpoint,
    ];
    const env = { ...process.env, LOG_LEVEL: 'ERROR' };
    sqs().middlewareStack.remove(INJECTED);
    const { stdout } = await run('npx', args, { cwd: ROOT, env });
    expect(stdout).toMatch(/stream-failures: [1-9]\d* replayed, 0 still failing/);
    const replayed = await until(() => (created(hook, failing).length ? created(hook, failing) : undefined), WAIT);
    expect(replayed[0].json).toMatchObject({ id: failing, content: `the one ${marker}`, account: { id: s.accountId } });
    expect((await peekFailures(rt.queueUrls.streamFailures)).filter((f) => JSON.stringify(f).includes(marker))).toEqual([]);
    // The replayed object is gone from the bucket.
    await expect(readFailureObject(failure.bucket, failure.key)).rejects.toMatchObject({ name: 'NoSuchKey' });

    // Once each: a last message in each conversation arrives after everything before it.
    const last = await Promise.all(convs.map((c) => s.admin.api.post(`${s.base}/conversations/${c}/messages`, { content: 'last' })));
    await until(() => last.every((l) => created(hook, l.body.id).length === 1), WAIT);
    for (const id of [before, failing, after, other1, other2]) expect(created(hook, id)).toHaveLength(1);
    // Retries with backoff, bisection and a replay in a child process: allow for a busy machine.
  }, 180_000);

  it('a replay of an entry whose record still fails keeps it and says so', async () => {
    const rt = await runtime();
    const marker = unique('still-failing-');
    refuseMessagesContaining(marker);
    const r = await s.admin.api.post(`${s.base}/conversations/${convs[0]}/messages`, { content: marker });
    expect(r.status).toBe(200);
    await until(async () => (await peekFailures(rt.queueUrls.streamFailures)).some((f) => JSON.stringify(f).includes(marker)), WAIT);
    const { REPLAY_SOURCES, replayQueue } = await import('#shared/events/replay.ts');
    const result = await replayQueue(rt.queueUrls.streamFailures, REPLAY_SOURCES['stream-failures']);
    expect(result.failed.length).toBeGreaterThanOrEqual(1);
    expect(result.failed.some((f) => /still fails/.test(f.error))).toBe(true);
    expect(created(hook, r.body.id)).toEqual([]);
  }, 120_000);
});
