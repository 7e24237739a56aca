import { GetQueueUrlCommand, QueueDoesNotExist, SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { isQueueSafe } from '#shared/codec/queue-text.ts';
import { MAX_MESSAGE_BYTES, packMessages, taskOf, taskQueueName, taskQueueSender, type TaskMessage } from '#shared/realtime/task-queues.ts';

// The Fargate transport's dispatcher side: frames grouped by task, packed into messages SQS takes, and a
// task without a queue answered as gone. A fake SQS client records the calls.

function fakeSqs(queues: Set<string>) {
  const calls: { name: string; input: any }[] = [];
  return {
    calls,
    async send(command: unknown) {
      if (command instanceof GetQueueUrlCommand) {
        calls.push({ name: 'GetQueueUrl', input: command.input });
        if (!queues.has(command.input.QueueName!))
          throw new QueueDoesNotExist({ message: 'The specified queue does not exist.', $metadata: {} });
        return { QueueUrl: `https://sqs.local/${command.input.QueueName}` };
      }
      if (command instanceof SendMessageBatchCommand) {
        calls.push({ name: 'SendMessageBatch', input: command.input });
        const name = command.input.QueueUrl!.split('/').pop()!;
        if (!queues.has(name)) throw new QueueDoesNotExist({ message: 'The specified queue does not exist.', $metadata: {} });
        return { Successful: command.input.Entries!.map((e) => ({ Id: e.Id })), Failed: [] };
      }
      throw new Error('unexpected command');
    },
  };
}

describe('task queues', () => {
  it('names the task of a connection and the queue of a task', () => {
    expect(taskOf('abc123.xyz')).toBe('abc123');
    expect(taskOf('no-task-id')).toBeUndefined();
    expect(taskOf('.x')).toBeUndefined();
    expect(taskQueueName('Stack-', 'abc123')).toBe('Stack-cable-abc123');
  });

  it('packs frames into messages of at most the limit, keeping each connection’s order', () => {
    const big = (i: number) => ({ type: 'x', i, pad: 'p'.repeat(100_000) });
    const bodies = packMessages([
      { c: 't.a', f: [big(1), big(2), big(3)] },
      { c: 't.b', f: [big(4)] },
    ]);
    expect(bodies.length).toBe(2);
    for (const b of bodies) expect(Buffer.byteLength(b)).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    const unpacked = bodies.flatMap((b) => (JSON.parse(b) as TaskMessage).frames.flatMap(({ c, f }) => f.map((x: any) => `${c}:${x.i}`)));
    expect(unpacked).toEqual(['t.a:1', 't.a:2', 't.a:3', 't.b:4']);
    expect(packMessages([])).toEqual([]);
  });

  it('writes bodies SQS carries: an emoji, U+FFFF and a control character arrive unchanged', () => {
    const frame = {
      identifier: '{"channel":"RoomChannel"}',
      message: { event: 'message.created', data: { content: 'ok 👍 \uffff \u0001 done' } },
    };
    const [body] = packMessages([{ c: 't.a', f: [frame as never] }]);
    expect(isQueueSafe(body!)).toBe(true);
    expect((JSON.parse(body!) as TaskMessage).frames).toEqual([{ c: 't.a', f: [frame] }]);
  });

  it('sends one broadcast as one message per task, caches queue URLs, and answers the connections of a task without a queue as gone', async () => {
    const sqs = fakeSqs(new Set(['P-cable-t1', 'P-cable-t2']));
    const sender = taskQueueSender(sqs, 'P-');
    const gone = await sender.sendBatch!([
      { connectionId: 't1.a', frames: [{ n: 1 }, { n: 2 }] },
      { connectionId: 't2.b', frames: [{ n: 3 }] },
      { connectionId: 't1.c', frames: [{ n: 4 }] },
      { connectionId: 't3.d', frames: [{ n: 5 }] },
      { connectionId: 'bare', frames: [{ n: 6 }] },
    ]);
    expect([...gone].sort()).toEqual(['bare', 't3.d']);
    const batches = sqs.calls.filter((c) => c.name === 'SendMessageBatch');
    expect(batches.map((b) => b.input.QueueUrl).sort()).toEqual(['https://sqs.local/P-cable-t1', 'https://sqs.local/P-cable-t2']);
    const t1 = batches.find((b) => b.input.QueueUrl.endsWith('t1'))!;
    expect(t1.input.Entries).toHaveLength(1);
    expect(JSON.parse(t1.input.Entries[0].MessageBody)).toEqual({
      frames: [
        { c: 't1.a', f: [{ n: 1 }, { n: 2 }] },
        { c: 't1.c', f: [{ n: 4 }] },
      ],
    });

    expect(await sender.send('t1.a', { n: 7 })).toBe(true);
    expect(sqs.calls.filter((c) => c.name === 'GetQueueUrl' && c.input.QueueName === 'P-cable-t1')).toHaveLength(1);
  });

  it('treats a queue deleted after its URL was cached as gone', async () => {
    const queues = new Set(['P-cable-t1']);
    const sqs = fakeSqs(queues);
    const sender = taskQueueSender(sqs, 'P-');
    expect(await sender.send('t1.a', { n: 1 })).toBe(true);
    queues.delete('P-cable-t1');
    expect(await sender.send('t1.a', { n: 2 })).toBe(false);
  });
});
