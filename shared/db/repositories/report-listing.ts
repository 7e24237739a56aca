import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import * as keys from '../keys.ts';
import type { Key } from '../keys.ts';
import { queryItems } from './common.ts';

// The account's reporting events listing (AP371, AP372): items a fold writes, one per UTC hour (and chunk) of
// the reporting events it folded, each a list of encoded events (shared/model/reporting-event-listing.ts).
// Append-only: a fold puts its items if new (a retried fold finds them), and only a later fold rewrites one,
// to take a deleted conversation's events out.

export interface ListingItem {
  key: Key;
  events: string[];
}

const listingOf = (i: Record<string, unknown>): ListingItem => ({
  key: { pk: String(i.pk), sk: String(i.sk) },
  events: Array.isArray(i.events) ? (i.events as string[]) : [],
});

/** AP371: a fold's listing item, put if new (false: a retried fold's, written before). */
export async function putListingItem(accountId: number, key: Key, events: string[]): Promise<boolean> {
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...key, type: 'reporting_events', account_id: accountId, events },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}

/** AP371: a listing item rewritten with fewer events (a later fold applying a deletion). */
export async function rewriteListingItem(accountId: number, item: ListingItem): Promise<void> {
  await db().send(
    new PutCommand({ TableName: tableName(), Item: { ...item.key, type: 'reporting_events', account_id: accountId, events: item.events } }),
  );
}

/** AP372: the listing items of the UTC hours [fromHour, toHour] (`yyyymmddhh`), in key order. */
export async function queryListing(accountId: number, fromHour: string, toHour: string, consistent = false): Promise<ListingItem[]> {
  const items = await queryItems({
    KeyConditionExpression: 'pk = :p AND sk BETWEEN :a AND :b',
    ExpressionAttributeValues: {
      ':p': keys.reportingEventsListingPartition(accountId),
      ':a': keys.reportingEventsListingHour(fromHour),
      ':b': `${keys.reportingEventsListingHour(toHour)}~`,
    },
    ConsistentRead: consistent,
  });
  return items.map(listingOf);
}
