import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SQSClient, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it } from 'vitest';
import { inSendOrder, restoreQueues, saveQueues, type InspectableQueues, type InspectedMessage } from '../../../infra/local/queue-state.ts';

// The local runtime's queues across a restart: everything a queue holds (visible, delayed, in flight) is
// saved, and sent again in the queue's own order with its group, deduplication id and attributes.

const msg = (body: string, sequenceNumber?: string, sentTimestamp = 0, extra: Partial<InspectedMessage> = {}): InspectedMessage => ({
  body,
  messageAttributes: {},
  sentTimestamp,
  ...(sequenceNumber ? { sequenceNumber, messageGroupId: 'g', messageDeduplicationId: `d-${body}` } : {}),
  ...extra,
});

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('queue state across a restart', () => {
  it('orders FIFO messages by sequence number (numerically) and standard ones by send time', () => {
    expect(
      inSendOrder([msg('b', '100000000000000000020'), msg('a', '99999999999999999999'), msg('c', '100000000000000000021')]).map(
        (m) => m.body,
      ),
    ).toEqual(['a', 'b', 'c']);
    expect(inSendOrder([msg('y', undefined, 20), msg('x', undefined, 10)]).map((m) => m.body)).toEqual(['x', 'y']);
  });

  it('saves visible, delayed and in-flight messages and sends them again in order, once, with their ids and attributes', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cw-queues-'));
    const attrs = { reason: { DataType: 'String', StringValue: 'HTTP 500' } };
    const emulator: InspectableQueues = {
      inspectQueue: (name) =>
        name === 'deliveries.fifo'
          ? {
              messages: {
                ready: [msg('second', '2'), msg('third', '3')],
                delayed: [],
                inflight: [{ message: msg('first', '1', 0, { messageAttributes: attrs }) }],
              },
            }
          : name === 'failures'
            ? { messages: { ready: [], delayed: [msg('late', undefined, 5)], inflight: [] } }
            : undefined,
    };
    expect(saveQueues(emulator, ['deliveries.fifo', 'failures', 'missing'], dir, [{ bucket: 'b', key: 'k', body: '{}' }])).toBe(4);

    const sent: SendMessageCommand['input'][] = [];
    const client = { send: async (c: SendMessageCommand) => void sent.push(c.input) } as unknown as SQSClient;
    const objects: string[] = [];
    const n = await restoreQueues(
      client,
      { 'deliveries.fifo': 'url-d', failures: 'url-f' },
      dir,
      async (o) => void objects.push(`${o.bucket}/${o.key}`),
    );
    expect(n).toBe(4);
    expect(objects).toEqual(['b/k']);
    expect(sent.map((s) => [s.QueueUrl, s.MessageBody])).toEqual([
      ['url-d', 'first'],
      ['url-d', 'second'],
      ['url-d', 'third'],
      ['url-f', 'late'],
    ]);
    expect(sent[0]).toMatchObject({ MessageGroupId: 'g', MessageDeduplicationId: 'd-first', MessageAttributes: attrs });
    expect(sent[3].MessageGroupId).toBeUndefined();
    // Restored once: the file is gone, a second start restores nothing.
    expect(existsSync(join(dir, 'queues.json'))).toBe(false);
    expect(await restoreQueues(client, {}, dir)).toBe(0);
  });
});
