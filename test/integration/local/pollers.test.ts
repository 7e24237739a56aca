import { CreateQueueCommand, DeleteQueueCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { describe, inject, it } from 'vitest';
import { pollQueue } from '../../../infra/local/pollers.ts';
import { until } from '../../support/until.ts';

// The local stand-in for an SQS event source mapping, stopped and started again as the runtime's pipeline
// pause and resume do (tests pause it around the reads they measure): a stop must not leave a receive
// behind on the queue, or the next messages go to it and stay invisible for the visibility timeout.

describe('queue poller: stop and start again', () => {
  it('handles a message sent right after quick stops and starts at once, not after the visibility timeout', async () => {
    const sqs = new SQSClient({
      region: 'us-east-1',
      endpoint: inject('awsEndpoint'),
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const name = `poller-restart-${process.pid}-${Date.now()}`;
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: { VisibilityTimeout: '60' } }));
    const handled: string[] = [];
    const start = () =>
      pollQueue({
        client: sqs,
        queueUrl: QueueUrl!,
        queueArn: `arn:aws:sqs:us-east-1:000000000000:${name}`,
        region: 'us-east-1',
        name: 'restarted',
        batchSize: 10,
        handler: async (event) => void handled.push(...event.Records.map((r) => r.body)),
      });
    let poller = start();
    try {
      // Each stop comes while a receive waits on the empty queue (it has had time to reach it), as a
      // pause around a read does.
      for (let i = 0; i < 5; i++) {
        await new Promise((r) => setTimeout(r, 100));
        await poller.stop();
        poller = start();
      }
      await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'after the restarts' }));
      await until(() => handled.includes('after the restarts'), { what: 'the message to be handled', timeoutMs: 10_000, everyMs: 20 });
    } finally {
      await poller.stop();
      await sqs.send(new DeleteQueueCommand({ QueueUrl }));
    }
  }, 30_000);
});
