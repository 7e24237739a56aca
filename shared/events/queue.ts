import { SQSClient } from '@aws-sdk/client-sqs';
import { config } from '../config.ts';

let client: SQSClient | undefined;

export function sqs(): SQSClient {
  return (client ??= new SQSClient({ region: config().region, endpoint: config().sqsEndpoint }));
}
