import { DeleteMessageCommand, ReceiveMessageCommand, type Message } from '@aws-sdk/client-sqs';
import { log } from '../log.ts';
import { sqs } from './queue.ts';
import { replayStreamFailure } from './stream-failures.ts';

// Replaying a failure queue: every entry is handed to its source's handler and deleted once handled;
// an entry that fails again stays (hidden for the rest of the run, so one run tries each entry once).
// A source is one line in REPLAY_SOURCES: the stream's failure destination today, dead-lettered
// deliveries next.

export interface ReplaySource {
  /** What the entries are, for the command's help. */
  description: string;
  /** Re-dispatches one entry; throws when it cannot be handled yet. */
  replay(body: string, message: Message): Promise<unknown>;
}

export const REPLAY_SOURCES = {
  'stream-failures': {
    description: 'table stream records the stream function could not forward (its on-failure destination)',
    replay: (body) => replayStreamFailure(body),
  },
} satisfies Record<string, ReplaySource>;

export type ReplaySourceName = keyof typeof REPLAY_SOURCES;

export interface ReplayResult {
  replayed: number;
  failed: { messageId: string; error: string }[];
}

/** Seconds an entry that failed again stays hidden, so the run does not meet it twice. */
const HIDE_SECONDS = 300;

export async function replayQueue(queueUrl: string, source: ReplaySource, opts: { limit?: number } = {}): Promise<ReplayResult> {
  const result: ReplayResult = { replayed: 0, failed: [] };
  const limit = opts.limit ?? Infinity;
  while (result.replayed + result.failed.length < limit) {
    const out = await sqs().send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: Math.min(10, limit - result.replayed - result.failed.length),
        VisibilityTimeout: HIDE_SECONDS,
        WaitTimeSeconds: 1,
      }),
    );
    const messages = out.Messages ?? [];
    if (!messages.length) break;
    for (const m of messages) {
      try {
        await source.replay(m.Body ?? '', m);
        await sqs().send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: m.ReceiptHandle }));
        result.replayed++;
      } catch (err) {
        log.warn('replay failed, entry kept', { messageId: m.MessageId, error: err });
        result.failed.push({ messageId: m.MessageId ?? '', error: (err as Error).message });
      }
    }
  }
  return result;
}
