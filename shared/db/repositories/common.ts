import { BatchGetCommand, GetCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import { INDEXES, KEY_ATTRIBUTES, TYPE_ATTRIBUTE } from '../table.ts';
import type { Key } from '../keys.ts';

/** Strips the table's key and bookkeeping attributes, leaving the record. */
export function record<T>(item: Record<string, unknown> | undefined): T | undefined {
  if (!item) return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(item)) {
    if (!KEY_ATTRIBUTES.includes(k) && k !== TYPE_ATTRIBUTE && k !== 'ttl') out[k] = v;
  }
  return out as T;
}

export async function getItem<T>(key: Key, consistent = false): Promise<T | undefined> {
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: consistent }));
  return record<T>(out.Item);
}

/** BatchGet in chunks of 100, retrying unprocessed keys; results keep the order of `keys`. */
export async function getMany<T>(keys: Key[]): Promise<(T | undefined)[]> {
  const found = new Map<string, Record<string, unknown>>();
  for (let i = 0; i < keys.length; i += 100) {
    let request: Key[] = keys.slice(i, i + 100);
    for (let attempt = 0; request.length && attempt < 8; attempt++) {
      const out = await db().send(new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: request } } }));
      for (const item of out.Responses?.[tableName()] ?? []) found.set(`${item.pk}|${item.sk}`, item);
      request = (out.UnprocessedKeys?.[tableName()]?.Keys as Key[] | undefined) ?? [];
      if (request.length) await new Promise((r) => setTimeout(r, 20 * 2 ** attempt));
    }
  }
  return keys.map((k) => record<T>(found.get(`${k.pk}|${k.sk}`)));
}

/** All items of one partition (or index partition) whose sort key starts with a prefix. */
export async function queryPrefix(
  partition: { pk?: string; gsi1pk?: string; gsi2pk?: string },
  skPrefix: string,
  opts: { limit?: number; forward?: boolean } = {},
): Promise<Record<string, unknown>[]> {
  const [pkName, pkValue, skName, index] = partition.gsi1pk
    ? [INDEXES.gsi1.pk, partition.gsi1pk, INDEXES.gsi1.sk, INDEXES.gsi1.name]
    : partition.gsi2pk
      ? [INDEXES.gsi2.pk, partition.gsi2pk, INDEXES.gsi2.sk, INDEXES.gsi2.name]
      : ['pk', partition.pk!, 'sk', undefined];
  const items: Record<string, unknown>[] = [];
  let start: QueryCommandInput['ExclusiveStartKey'];
  do {
    const out = await db().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: index,
        KeyConditionExpression: '#p = :p AND begins_with(#s, :s)',
        ExpressionAttributeNames: { '#p': pkName, '#s': skName },
        ExpressionAttributeValues: { ':p': pkValue, ':s': skPrefix },
        ExclusiveStartKey: start,
        ScanIndexForward: opts.forward ?? true,
        Limit: opts.limit,
      }),
    );
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start && (opts.limit === undefined || items.length < opts.limit));
  return opts.limit === undefined ? items : items.slice(0, opts.limit);
}
