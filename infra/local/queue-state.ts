import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';

// The SQS/S3 emulator keeps its queues and buckets in memory. With DATA_DIR the runtime saves what the
// pipeline's queues hold (and the stream's failure objects their entries name) when it stops (after the pollers have finished their
// batches) and sends it again when it starts, in
// each queue's order, so a restart loses no queued event or delivery. What changes: a message hidden for a
// retry's backoff is visible again at once, and receive counts start over (a delivery's next retry comes
// sooner, and its backoff starts from the first step again).

/** What the emulator's inspection gives for one message (fauxqs `inspectQueue`). */
export interface InspectedMessage {
  body: string;
  messageAttributes: Record<string, { DataType: string; StringValue?: string; BinaryValue?: string }>;
  sentTimestamp: number;
  messageGroupId?: string;
  messageDeduplicationId?: string;
  sequenceNumber?: string;
}

export interface InspectableQueues {
  inspectQueue(
    name: string,
  ): { messages: { ready: InspectedMessage[]; delayed: InspectedMessage[]; inflight: { message: InspectedMessage }[] } } | undefined;
}

interface SavedQueue {
  name: string;
  messages: InspectedMessage[];
}

/** An object of an emulated bucket (the stream's failure objects), saved beside the queues. */
export interface SavedObject {
  bucket: string;
  key: string;
  body: string;
}

const FILE = 'queues.json';

/** A queue's messages in the order they were sent: FIFO by sequence number, standard by send time. */
export function inSendOrder(messages: InspectedMessage[]): InspectedMessage[] {
  return [...messages].sort((a, b) => {
    if (a.sequenceNumber && b.sequenceNumber) {
      const x = BigInt(a.sequenceNumber);
      const y = BigInt(b.sequenceNumber);
      return x < y ? -1 : x > y ? 1 : 0;
    }
    return a.sentTimestamp - b.sentTimestamp;
  });
}

/** Writes every message of the named queues (visible, delayed and in flight) to `dir/queues.json`. */
export function saveQueues(emulator: InspectableQueues, names: string[], dir: string, objects: SavedObject[] = []): number {
  const saved: SavedQueue[] = names.map((name) => {
    const q = emulator.inspectQueue(name);
    const all = q ? [...q.messages.ready, ...q.messages.delayed, ...q.messages.inflight.map((i) => i.message)] : [];
    return { name, messages: inSendOrder(all) };
  });
  const file = `${dir}/${FILE}`;
  // Written aside and renamed: a stop cut short leaves the previous file, never half of one.
  writeFileSync(`${file}.tmp`, JSON.stringify({ version: 1, savedAt: new Date().toISOString(), queues: saved, objects }));
  renameSync(`${file}.tmp`, file);
  return saved.reduce((n, q) => n + q.messages.length, 0);
}

/**
 * Sends the saved messages to their queues again, in order, then removes the file. Messages keep their
 * group, deduplication id and attributes (a delivery keeps its id: receivers deduplicate on it).
 */
export async function restoreQueues(
  client: SQSClient,
  urls: Record<string, string>,
  dir: string,
  putObject: (o: SavedObject) => Promise<void> = async () => undefined,
): Promise<number> {
  const file = `${dir}/${FILE}`;
  if (!existsSync(file)) return 0;
  const { queues, objects = [] } = JSON.parse(readFileSync(file, 'utf8')) as { queues: SavedQueue[]; objects?: SavedObject[] };
  // The objects first: a queue entry may name one.
  for (const o of objects) await putObject(o);
  let sent = 0;
  for (const q of queues) {
    const url = urls[q.name];
    if (!url) continue;
    for (const m of q.messages) {
      await client.send(
        new SendMessageCommand({
          QueueUrl: url,
          MessageBody: m.body,
          ...(m.messageGroupId ? { MessageGroupId: m.messageGroupId } : {}),
          ...(m.messageDeduplicationId ? { MessageDeduplicationId: m.messageDeduplicationId } : {}),
          ...(Object.keys(m.messageAttributes ?? {}).length
            ? {
                MessageAttributes: Object.fromEntries(
                  Object.entries(m.messageAttributes).map(([k, v]) => [
                    k,
                    {
                      DataType: v.DataType,
                      ...(v.StringValue !== undefined ? { StringValue: v.StringValue } : {}),
                      ...(v.BinaryValue !== undefined ? { BinaryValue: Buffer.from(v.BinaryValue, 'base64') } : {}),
                    },
                  ]),
                ),
              }
            : {}),
        }),
      );
      sent++;
    }
  }
  rmSync(file);
  return sent;
}
