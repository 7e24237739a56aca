import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';

type RawItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** One item of a transaction; `onConflict` names the error when its condition fails. */
export type TxItem = { item: RawItem; onConflict?: () => Error };

const withTable = (item: RawItem): RawItem => {
  const out: Record<string, unknown> = {};
  for (const [op, body] of Object.entries(item)) out[op] = { ...(body as object), TableName: tableName() };
  return out as RawItem;
};

export const put = (Item: Record<string, unknown>, opts: { ifNew?: boolean; condition?: Condition } = {}): RawItem => ({
  Put: {
    TableName: '',
    Item,
    ...(opts.ifNew ? { ConditionExpression: 'attribute_not_exists(pk)' } : {}),
    ...conditionOf(opts.condition),
  },
});

export const del = (Key: Record<string, unknown>, condition?: Condition): RawItem => ({
  Delete: { TableName: '', Key, ...conditionOf(condition) },
});

export const check = (Key: Record<string, unknown>, condition: Condition): RawItem => ({
  ConditionCheck: { TableName: '', Key, ...conditionOf(condition)! } as NonNullable<RawItem['ConditionCheck']>,
});

export interface Condition {
  expression: string;
  names?: Record<string, string>;
  values?: Record<string, unknown>;
}

function conditionOf(c?: Condition) {
  if (!c) return {};
  return {
    ConditionExpression: c.expression,
    ...(c.names ? { ExpressionAttributeNames: c.names } : {}),
    ...(c.values ? { ExpressionAttributeValues: c.values } : {}),
  };
}

export class ConflictError extends Error {
  constructor(readonly index: number) {
    super(`Transaction condition failed at item ${index}`);
  }
}

const MAX_CONFLICT_RETRIES = 6;

/**
 * All or nothing; a failed condition throws the item's own error (or ConflictError). A transaction that
 * only collided with another one on a shared item (TransactionConflict, e.g. two writes moving the same
 * counter) is tried again: the SDK does not retry those itself.
 */
export async function transact(items: TxItem[]): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await db().send(new TransactWriteCommand({ TransactItems: items.map((i) => withTable(i.item)) }));
      return;
    } catch (err) {
      if (!(err instanceof TransactionCanceledException)) throw err;
      const reasons = err.CancellationReasons ?? [];
      const index = reasons.findIndex((r) => r.Code === 'ConditionalCheckFailed');
      if (index >= 0) throw items[index]?.onConflict?.() ?? new ConflictError(index);
      const collided = reasons.some((r) => r.Code === 'TransactionConflict');
      if (!collided || attempt >= MAX_CONFLICT_RETRIES) throw err;
      await new Promise((r) => setTimeout(r, Math.random() * 20 * 2 ** attempt));
    }
  }
}
