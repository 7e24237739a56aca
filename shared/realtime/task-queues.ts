import { GetQueueUrlCommand, SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { encodeQueueBody } from '#shared/codec/queue-text.ts';
import type { Frame } from './protocol.ts';
import type { Sender } from './protocol.ts';

// The Fargate transport's fan-out: every socket-server task owns one SQS queue, `<prefix>cable-<taskId>`,
// and names its connections `<taskId>.<random>`. The dispatcher groups a broadcast's frames by task and
// sends each task one message per ≤ 240 KB of frames (SendMessageBatch); a task that is gone has no queue,
// so its connections are gone.

/** A queue message: frames by connection, each connection's in order. */
export interface TaskMessage {
  frames: { c: string; f: Frame[] }[];
}

/** SQS takes 256 KB per message and per batch; this leaves room for the envelope. */
export const MAX_MESSAGE_BYTES = 240 * 1024;

export const taskQueueName = (prefix: string, taskId: string) => `${prefix}cable-${taskId}`;

/** The task a connection id names (`<taskId>.<random>`), or undefined for ids of no task. */
export function taskOf(connectionId: string): string | undefined {
  const dot = connectionId.indexOf('.');
  return dot > 0 ? connectionId.slice(0, dot) : undefined;
}

const isMissingQueue = (err: unknown) => {
  const e = err as { name?: string; Code?: string; message?: string };
  return (
    e?.name === 'QueueDoesNotExist' ||
    e?.name === 'AWS.SimpleQueueService.NonExistentQueue' ||
    e?.Code === 'AWS.SimpleQueueService.NonExistentQueue' ||
    /does not exist|NonExistentQueue/i.test(e?.message ?? '')
  );
};

/** Splits one task's frames into message bodies of at most `max` bytes (a single larger connection list is split by frame). */
export function packMessages(list: { c: string; f: Frame[] }[], max = MAX_MESSAGE_BYTES): string[] {
  const bodies: string[] = [];
  let current: TaskMessage = { frames: [] };
  let size = 13; // {"frames":[]}
  const flush = () => {
    // The queue codec: emoji and other characters SQS cannot carry travel as \u escapes.
    if (current.frames.length) bodies.push(encodeQueueBody(current));
    current = { frames: [] };
    size = 13;
  };
  for (const { c, f } of list) {
    for (const frame of f) {
      const bytes = Buffer.byteLength(encodeQueueBody(frame)) + 1;
      const last = current.frames.at(-1);
      const extra = last?.c === c ? bytes : bytes + Buffer.byteLength(encodeQueueBody(c)) + 12;
      if (size + extra > max && current.frames.length) flush();
      const tail = current.frames.at(-1);
      if (tail?.c === c) tail.f.push(frame);
      else current.frames.push({ c, f: [frame] });
      size += extra;
    }
  }
  flush();
  return bodies;
}

/** Groups bodies into SendMessageBatch calls: at most 10 entries and `max` bytes each. */
function batches(bodies: string[], max = MAX_MESSAGE_BYTES): string[][] {
  const out: string[][] = [];
  let cur: string[] = [];
  let size = 0;
  for (const b of bodies) {
    const n = Buffer.byteLength(b);
    if (cur.length && (cur.length === 10 || size + n > max)) {
      out.push(cur);
      cur = [];
      size = 0;
    }
    cur.push(b);
    size += n;
  }
  if (cur.length) out.push(cur);
  return out;
}

export interface QueueSender extends Sender {
  /** Forget a cached queue URL (tests; a task that came back under the same id). */
  forget(taskId: string): void;
}

/** The dispatcher's sender for the Fargate transport. */
export function taskQueueSender(client: Pick<SQSClient, 'send'>, prefix: string): QueueSender {
  const urls = new Map<string, Promise<string | undefined>>();
  const urlOf = (taskId: string) => {
    let url = urls.get(taskId);
    if (!url) {
      url = client
        .send(new GetQueueUrlCommand({ QueueName: taskQueueName(prefix, taskId) }))
        .then((r) => r.QueueUrl)
        .catch((err) => {
          if (isMissingQueue(err)) return undefined;
          urls.delete(taskId);
          throw err;
        });
      urls.set(taskId, url);
    }
    return url;
  };

  /** Sends one task's frames; false when its queue is gone. */
  const sendTask = async (taskId: string, list: { c: string; f: Frame[] }[]): Promise<boolean> => {
    const url = await urlOf(taskId);
    if (!url) return false;
    try {
      for (const batch of batches(packMessages(list))) {
        const res = await client.send(
          new SendMessageBatchCommand({ QueueUrl: url, Entries: batch.map((MessageBody, i) => ({ Id: String(i), MessageBody })) }),
        );
        if (res.Failed?.length) throw new Error(`cable queue ${taskId}: ${res.Failed.map((f) => f.Code).join(', ')}`);
      }
      return true;
    } catch (err) {
      if (!isMissingQueue(err)) throw err;
      urls.delete(taskId);
      return false;
    }
  };

  return {
    forget: (taskId) => void urls.delete(taskId),
    async send(connectionId, frame) {
      const gone = await this.sendBatch!([{ connectionId, frames: [frame] }]);
      return !gone.has(connectionId);
    },
    async sendBatch(items) {
      const byTask = new Map<string, { c: string; f: Frame[] }[]>();
      const gone = new Set<string>();
      for (const { connectionId, frames } of items) {
        const task = taskOf(connectionId);
        if (!task) {
          gone.add(connectionId);
          continue;
        }
        byTask.set(task, [...(byTask.get(task) ?? []), { c: connectionId, f: frames }]);
      }
      await Promise.all(
        [...byTask].map(async ([task, list]) => {
          if (!(await sendTask(task, list))) for (const { c } of list) gone.add(c);
        }),
      );
      return gone;
    },
  };
}
