import middy from '@middy/core';
import jsonBodyParser from '@middy/http-json-body-parser';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';

// The yardstick for bundle size and cold import: the least a handler on this stack can be
// (SDK document client + middy + json body parser + valibot, one GetItem).

const Schema = v.object({ id: v.string() });
const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));

export const handler = middy()
  .use(jsonBodyParser())
  .handler(async (event: { body?: unknown }) => {
    const { id } = v.parse(Schema, event.body);
    const out = await client.send(new GetCommand({ TableName: 'bench', Key: { pk: id, sk: id } }));
    return { statusCode: 200, body: JSON.stringify(out.Item ?? null) };
  });
