import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { config } from '#shared/config.ts';
import { observed } from '#shared/aws/observe.ts';

let client: SQSClient | undefined;

export function sqs(): SQSClient {
  return (client ??= observed(new SQSClient({ region: config().region, endpoint: config().sqsEndpoint })));
}

/** How many messages a queue holds (approximately): also a probe that the queue answers. */
export async function queueDepth(url: string): Promise<number> {
  const out = await sqs().send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages'] }));
  return Number(out.Attributes?.ApproximateNumberOfMessages ?? 0);
}
