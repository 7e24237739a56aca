import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../infra/local/dynamodb-local.ts';

// One DynamoDB Local and one SQS/S3 emulator for the whole run; every worker gets its own database
// (its own access key id) and its own queue names.
export default async function setup(project: TestProject) {
  const ddb = await startDynamoDbLocal();
  const { startFauxqs } = await import('fauxqs');
  const faux = await startFauxqs({ port: 0, host: '127.0.0.1', logger: false });
  project.provide('dynamodbEndpoint', ddb.endpoint);
  project.provide('awsEndpoint', faux.address.replace('localhost', '127.0.0.1'));
  return async () => {
    await faux.stop();
    await ddb.stop();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    awsEndpoint: string;
  }
}
