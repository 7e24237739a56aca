import { SQSClient } from '@aws-sdk/client-sqs';
import { config } from '#shared/config.ts';
import { observed } from '#shared/aws/observe.ts';

let client: SQSClient | undefined;

export function sqs(): SQSClient {
  return (client ??= observed(new SQSClient({ region: config().region, endpoint: config().sqsEndpoint })));
}
