import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '#shared/config.ts';
import { observed } from '#shared/aws/observe.ts';
import { unprocessable } from '#shared/errors.ts';
import { oversizedKeyValue } from './keys.ts';
import { addAuditStamping } from './audit-stamp.ts';

let doc: DynamoDBDocumentClient | undefined;

/** One client per container; the endpoint comes from config, so nothing here knows where it runs. */
export function db(): DynamoDBDocumentClient {
  if (doc) return doc;
  const c = config();
  const client = observed(new DynamoDBClient({ region: c.region, endpoint: c.dynamodbEndpoint, maxAttempts: 4 }));
  doc = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
  });
  // A key value over DynamoDB's limits (user input that no schema bounded) is the caller's error, never a
  // ValidationException answered 500: refused before the call, whatever the command.
  doc.middlewareStack.add(
    (next) => async (args) => {
      if (oversizedKeyIn(args.input as CommandInput))
        throw unprocessable([{ field: '', message: 'A value is too long to be stored or looked up', code: 'too_long' }]);
      return next(args);
    },
    { step: 'initialize', name: 'keyLimits', priority: 'high' },
  );
  doc.middlewareStack.add(
    (next, context) => async (args) => {
      const out = await next(args);
      if (writeListeners.length && WRITES.has(String(context.commandName))) {
        const written = writtenKeys(args.input as CommandInput);
        if (written.length) for (const l of writeListeners) l(written);
      }
      return out;
    },
    { step: 'initialize', name: 'writeListeners', priority: 'low' },
  );
  addAuditStamping(doc, tableName);
  return doc;
}

export type WrittenKey = { pk: string; sk?: string };

type Attrs = Record<string, unknown>;

/** What the middlewares read of a command's input, whichever of DynamoDB's request shapes it is. */
interface CommandInput {
  Key?: Attrs;
  Item?: Attrs;
  TransactItems?: {
    Put?: { Item?: Attrs };
    Update?: { Key?: Attrs };
    Delete?: { Key?: Attrs };
    ConditionCheck?: { Key?: Attrs };
    Get?: { Key?: Attrs };
  }[];
  RequestItems?: Record<string, { PutRequest?: { Item?: Attrs }; DeleteRequest?: { Key?: Attrs } }[] | { Keys?: Attrs[] }>;
  KeyConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Attrs;
}
const writeListeners: ((keys: WrittenKey[]) => void)[] = [];

/**
 * Tells `listener` the keys of every successful write this container makes, so a container's caches
 * (credentials, the pipeline's read cache) drop what it changed itself. Where one process runs every
 * function (the local runtime) that covers every write.
 */
export const onWrite = (listener: (keys: WrittenKey[]) => void) => void writeListeners.push(listener);

const str = (v: unknown) =>
  typeof v === 'string' ? v : typeof (v as { S?: unknown })?.S === 'string' ? (v as { S: string }).S : undefined;
const keyOf = (item: Record<string, unknown> | undefined): WrittenKey[] => {
  const pk = str(item?.pk);
  return pk ? [{ pk, sk: str(item?.sk) }] : [];
};

const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand', 'TransactWriteItemsCommand']);

function writtenKeys(input: CommandInput): WrittenKey[] {
  if (input.TransactItems) return input.TransactItems.flatMap((t) => keyOf(t.Put?.Item ?? t.Update?.Key ?? t.Delete?.Key));
  if (input.RequestItems) {
    return Object.values(input.RequestItems).flatMap((reqs) =>
      Array.isArray(reqs) ? reqs.flatMap((r) => keyOf(r.PutRequest?.Item ?? r.DeleteRequest?.Key)) : [],
    );
  }
  return keyOf(input.Item ?? input.Key);
}

/** The first key attribute over DynamoDB's limits in a command's input, or undefined. */
export const oversizedKeyIn = (input: CommandInput): string | undefined => keyValuesOf(input).map(oversizedKeyValue).find(Boolean);

/** The key attributes a command's input names: keys, whole items, and a Query's key condition values. */
function keyValuesOf(input: CommandInput): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const add = (x: unknown) => x && typeof x === 'object' && out.push(x as Record<string, unknown>);
  add(input.Key);
  add(input.Item);
  for (const t of input.TransactItems ?? []) {
    add(t.Put?.Item);
    add(t.Update?.Key);
    add(t.Delete?.Key);
    add(t.ConditionCheck?.Key);
    add(t.Get?.Key);
  }
  for (const reqs of Object.values(input.RequestItems ?? {})) {
    if (Array.isArray(reqs)) for (const r of reqs) add(r.PutRequest?.Item ?? r.DeleteRequest?.Key);
    else for (const k of reqs?.Keys ?? []) add(k);
  }
  if (typeof input.KeyConditionExpression === 'string') {
    const names = input.ExpressionAttributeNames ?? {};
    const values = input.ExpressionAttributeValues ?? {};
    const condition: Record<string, unknown> = {};
    const attr = (n: string) => (n.startsWith('#') ? (names[n] ?? n) : n);
    const expr = input.KeyConditionExpression as string;
    for (const m of expr.matchAll(/(#?\w+)\s*(?:=|<=|>=|<|>|BETWEEN)\s*(:\w+)(?:\s+AND\s+(:\w+))?/g)) {
      for (const v of [m[2], m[3]]) if (v && typeof values[v] === 'string') condition[attr(m[1])] = values[v];
    }
    for (const m of expr.matchAll(/begins_with\(\s*(#?\w+)\s*,\s*(:\w+)\s*\)/g)) condition[attr(m[1])] = values[m[2]];
    add(condition);
  }
  return out;
}

export const tableName = () => config().tableName;
