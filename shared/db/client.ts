import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.ts';
import { observed } from '../aws/observe.ts';

let doc: DynamoDBDocumentClient | undefined;

/** One client per container; the endpoint comes from config, so nothing here knows where it runs. */
export function db(): DynamoDBDocumentClient {
  if (doc) return doc;
  const c = config();
  const client = observed(new DynamoDBClient({ region: c.region, endpoint: c.dynamodbEndpoint, maxAttempts: 4 }));
  doc = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
  });
  doc.middlewareStack.add(
    (next, context) => async (args) => {
      const out = await next(args);
      if (writeListeners.length && WRITES.has(String(context.commandName))) {
        const written = writtenKeys(args.input as Record<string, any>);
        if (written.length) for (const l of writeListeners) l(written);
      }
      return out;
    },
    { step: 'initialize', name: 'writeListeners', priority: 'low' },
  );
  return doc;
}

export type WrittenKey = { pk: string; sk?: string };
const writeListeners: ((keys: WrittenKey[]) => void)[] = [];

/**
 * Tells `listener` the keys of every successful write this container makes, so a container's caches
 * (credentials, the pipeline's read cache) drop what it changed itself. Where one process runs every
 * function (the local runtime) that covers every write.
 */
export const onWrite = (listener: (keys: WrittenKey[]) => void) => void writeListeners.push(listener);

const str = (v: unknown) => (typeof v === 'string' ? v : typeof (v as { S?: unknown })?.S === 'string' ? (v as { S: string }).S : undefined);
const keyOf = (item: Record<string, unknown> | undefined): WrittenKey[] => {
  const pk = str(item?.pk);
  return pk ? [{ pk, sk: str(item?.sk) }] : [];
};

const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand', 'TransactWriteItemsCommand']);

function writtenKeys(input: Record<string, any>): WrittenKey[] {
  if (input.TransactItems) return (input.TransactItems as any[]).flatMap((t) => keyOf(t.Put?.Item ?? t.Update?.Key ?? t.Delete?.Key));
  if (input.RequestItems) {
    return Object.values(input.RequestItems as Record<string, any[]>).flatMap((reqs) => reqs.flatMap((r) => keyOf(r.PutRequest?.Item ?? r.DeleteRequest?.Key)));
  }
  return keyOf(input.Item ?? input.Key);
}

export const tableName = () => config().tableName;
