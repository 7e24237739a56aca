import { SQSClient } from '@aws-sdk/client-sqs';
import { config } from '../config.ts';
import { observed } from '../aws/observe.ts';

let client: SQSClient | undefined;

export function sqs(): SQSClient {
  return (client ??= observed(new SQSClient({ region: config().region, endpoint: config().sqsEndpoint })));
}
