import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../infra/local/dynamodb-local.ts';

// DynamoDB Local and the SQS/S3 emulator, for the projects that need them (integration, infra, e2e). One
// of each per run, shared by those projects: every worker process gets its own database (its own access
// key id) and its own queue and bucket names (test/support/runtime.ts). Each run starts its own on free
// ports, so two runs on one machine share nothing.

interface Services {
  dynamodbEndpoint: string;
  awsEndpoint: string;
  stop(): Promise<void>;
}

async function startServices(): Promise<Services> {
  const ddb = await startDynamoDbLocal();
  try {
    const { startFauxqs } = await import('fauxqs');
    const faux = await startFauxqs({ port: 0, host: '127.0.0.1', logger: false });
    return {
      dynamodbEndpoint: ddb.endpoint,
      awsEndpoint: faux.address.replace('localhost', '127.0.0.1'),
      async stop() {
        await faux.stop();
        await ddb.stop();
      },
    };
  } catch (err) {
    await ddb.stop();
    throw err;
  }
}

// Every project loads this file on its own, in the one main process: the services live on a global, and
// the last project to tear down stops them.
const SHARED = Symbol.for('chatwoot-serverless.test-services');
type Shared = { users: number; started: Promise<Services> };
const holder = globalThis as { [SHARED]?: Shared };

export default async function setup(project: TestProject) {
  const shared = (holder[SHARED] ??= { users: 0, started: startServices() });
  shared.users++;
  let services: Services;
  try {
    services = await shared.started;
  } catch (err) {
    if (--shared.users === 0) delete holder[SHARED];
    throw err;
  }
  project.provide('dynamodbEndpoint', services.dynamodbEndpoint);
  project.provide('awsEndpoint', services.awsEndpoint);
  return async () => {
    if (--shared.users > 0) return;
    delete holder[SHARED];
    await services.stop();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    awsEndpoint: string;
  }
}
