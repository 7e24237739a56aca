import { AsyncLocalStorage } from 'node:async_hooks';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { AUDIT_BY, AUDIT_DELETE, AUDITED_TYPES, type AuditStamp } from '#shared/model/audit.ts';
import { isAuditedKey, type Key } from './keys.ts';

// Who changed an audited record reaches the events pipeline on the record itself, as Chatwoot's `audited` gem
// reads `Current.user` and the request's address: the HTTP chain runs each account request inside `asWriter`, and
// every write of an audited item (put or update) made inside carries the request's stamp in `audit_by` (null
// outside a request, so no stale stamp outlives the write). A delete cannot carry attributes, so a request's delete
// of an audited item is preceded by one update that sets `audit_delete`: the stream's REMOVE then names the deleter
// in its old image. The audit stage (shared/events/audit.ts) turns the images into entries; nothing else reads these.

const writers = new AsyncLocalStorage<AuditStamp>();

/** Runs `fn` as a request of `stamp`'s writer: audited writes inside carry the stamp. */
export const asWriter = <T>(stamp: AuditStamp, fn: () => T): T => writers.run(stamp, fn);

type Attrs = Record<string, unknown>;
interface Update {
  Key?: Attrs;
  UpdateExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Attrs;
}
interface WriteInput extends Update {
  TableName?: string;
  Item?: Attrs;
  TransactItems?: { Put?: { Item?: Attrs }; Update?: Update; Delete?: { Key?: Attrs; TableName?: string } }[];
}

const isAuditedItem = (item: Attrs | undefined) => !!item && typeof item.type === 'string' && item.type in AUDITED_TYPES;

/** `clause` (SET or REMOVE) with `part` first in it, or a clause of its own added. */
const withClause = (expr: string, clause: 'SET' | 'REMOVE', part: string) => {
  // The keyword at the start or after a space, in capitals (as every update here writes it): never a `:set` placeholder.
  const m = new RegExp(`(^|\\s)${clause}\\s+`).exec(expr);
  if (!m) return `${expr} ${clause} ${part}`.trim();
  const at = m.index + m[1].length;
  return `${expr.slice(0, at)}${clause} ${part}, ${expr.slice(at + m[0].length - m[1].length)}`;
};

/**
 * The update with `audit_by = stamp` added, and a deleter's stamp left by a delete that then failed (its condition)
 * removed, so no later removal is blamed on it. The deleter's own stamp (which names `#audit_delete`) keeps it.
 */
export function stampedUpdate<U extends Update>(u: U, stamp: AuditStamp | null): U {
  const setsDeleter = u.ExpressionAttributeNames?.['#audit_delete'] === AUDIT_DELETE;
  let expr = withClause(u.UpdateExpression ?? '', 'SET', '#audit_by = :audit_by');
  if (!setsDeleter) expr = withClause(expr, 'REMOVE', '#audit_delete');
  return {
    ...u,
    UpdateExpression: expr,
    ExpressionAttributeNames: { ...u.ExpressionAttributeNames, '#audit_by': AUDIT_BY, '#audit_delete': AUDIT_DELETE },
    ExpressionAttributeValues: { ...u.ExpressionAttributeValues, ':audit_by': stamp },
  };
}

/**
 * A write command's input with the writer's stamp on its audited items, and the audited keys it deletes inside a
 * request (to be stamped first). Pure: the middleware below applies it.
 */
export function stampWrite(commandName: string, input: WriteInput, stamp: AuditStamp | null): { input: WriteInput; deletes: Key[] } {
  const deletes: Key[] = [];
  const onDelete = (key: Attrs | undefined) => {
    if (stamp && key && isAuditedKey(key)) deletes.push({ pk: String(key.pk), sk: String(key.sk) });
  };
  switch (commandName) {
    case 'PutItemCommand':
      return { input: isAuditedItem(input.Item) ? { ...input, Item: { ...input.Item, [AUDIT_BY]: stamp } } : input, deletes };
    case 'UpdateItemCommand':
      return { input: input.Key && isAuditedKey(input.Key) ? stampedUpdate(input, stamp) : input, deletes };
    case 'DeleteItemCommand':
      onDelete(input.Key);
      return { input, deletes };
    case 'TransactWriteItemsCommand': {
      const items = (input.TransactItems ?? []).map((t) => {
        if (t.Put && isAuditedItem(t.Put.Item)) return { ...t, Put: { ...t.Put, Item: { ...t.Put.Item, [AUDIT_BY]: stamp } } };
        if (t.Update?.Key && isAuditedKey(t.Update.Key)) return { ...t, Update: stampedUpdate(t.Update, stamp) };
        if (t.Delete) onDelete(t.Delete.Key);
        return t;
      });
      return { input: { ...input, TransactItems: items }, deletes };
    }
    default:
      return { input, deletes };
  }
}

/** Installs the stamping on the table's document client (shared/db/client.ts). */
export function addAuditStamping(doc: DynamoDBDocumentClient, tableName: () => string) {
  doc.middlewareStack.add(
    (next, context) => async (args) => {
      const stamp = writers.getStore() ?? null;
      const { input, deletes } = stampWrite(String(context.commandName), args.input as WriteInput, stamp);
      for (const key of deletes) {
        try {
          await doc.send(
            new UpdateCommand({
              TableName: tableName(),
              Key: key,
              UpdateExpression: 'SET #audit_delete = :audit_delete',
              ConditionExpression: 'attribute_exists(pk)',
              ExpressionAttributeNames: { '#audit_delete': AUDIT_DELETE },
              ExpressionAttributeValues: { ':audit_delete': stamp },
            }),
          );
        } catch (err) {
          // Already gone: the delete below fails or removes nothing, and there is nothing to log.
          if (!(err instanceof ConditionalCheckFailedException)) throw err;
        }
      }
      return next({ ...args, input });
    },
    { step: 'initialize', name: 'auditStamp', priority: 'normal' },
  );
}
