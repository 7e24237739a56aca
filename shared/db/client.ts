import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.ts';

let doc: DynamoDBDocumentClient | undefined;

/** One client per container; the endpoint comes from config, so nothing here knows where it runs. */
export function db(): DynamoDBDocumentClient {
  if (doc) return doc;
  const c = config();
  const client = new DynamoDBClient({ region: c.region, endpoint: c.dynamodbEndpoint, maxAttempts: 4 });
  doc = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
  });
  return doc;
}

export const tableName = () => config().tableName;
