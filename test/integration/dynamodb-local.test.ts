import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../infra/local/dynamodb-local.ts';

// DynamoDB Local binds its port only after Java has started, so another server can hold it by then (a
// busy machine running two suites saw `npm start` talk to an SQS emulator). The start must notice.

describe('starting DynamoDB Local', () => {
  const started: DynamoDbLocal[] = [];
  let other: Server | undefined;
  afterAll(async () => {
    await Promise.all(started.map((d) => d.stop()));
    await new Promise<void>((r) => (other ? other.close(() => r()) : r()));
  });

  it('does not take another server on its port for DynamoDB: the start fails and the other server keeps its port', async () => {
    other = createServer((_req, res) => res.writeHead(400, { 'content-type': 'application/json' }).end('{"message":"Unknown action"}'));
    await new Promise<void>((r) => other!.listen(0, '127.0.0.1', r));
    const port = (other.address() as AddressInfo).port;
    await expect(startDynamoDbLocal({ port })).rejects.toThrow(/could not bind a port/);
    // The other server still answers on its port.
    expect((await fetch(`http://127.0.0.1:${port}`, { method: 'POST' })).status).toBe(400);
  });

  it('answers ListTables on the endpoint it returns', async () => {
    const d = await startDynamoDbLocal();
    started.push(d);
    expect(d.process.exitCode).toBeNull();
    const client = new DynamoDBClient({
      endpoint: d.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    expect((await client.send(new ListTablesCommand({}))).TableNames).toEqual([]);
    client.destroy();
  });
});
