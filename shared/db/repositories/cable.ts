import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import * as keys from '../keys.ts';
import { INDEXES, TTL_ATTRIBUTE } from '../table.ts';
import { transact, put } from '../transact.ts';
import { pubsubTokenLocation } from '#shared/crypto/tokens.ts';
import type { ContactInboxRecord } from '#shared/model/contacts.ts';
import type { CableConnection, CableSubscription, PresenceRecord } from '#shared/model/cable.ts';
import { batchWriteAll, getItem, queryPrefix, record } from './common.ts';
import { releaseThrottleSlot, takeThrottleSlot } from './limits.ts';

// Socket connections, their subscriptions and presence (access patterns 150–154). Every item expires:
// a connection that vanished without $disconnect leaves nothing behind for long.

const ttlOf = (expiresAtMs: number) => Math.ceil(expiresAtMs / 1000);

/** AP150: one connection. */
export const getConnection = (connectionId: string) => getItem<CableConnection>(keys.cableConnection(connectionId), true);

export async function putConnection(c: CableConnection): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...keys.cableConnection(c.connection_id),
        ...keys.cableConnectionIndex(c.connected_at, c.connection_id),
        type: 'cable_connection',
        ...c,
        [TTL_ATTRIBUTE]: ttlOf(c.expires_at),
      },
    }),
  );
}

/** Counts one subscribe attempt; the count after it, or undefined when the connection is gone. */
export async function countSubscribeAttempt(connectionId: string): Promise<number | undefined> {
  try {
    const out = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.cableConnection(connectionId),
        UpdateExpression: 'ADD attempts :one',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(out.Attributes?.attempts ?? 0);
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return undefined;
    throw err;
  }
}

export class SubscriptionRefused extends Error {}

/**
 * Adds a subscription and lists it on its connection in one transaction: a connection that closed
 * meanwhile, one at its limit, or one already holding this identifier refuses it.
 */
export async function addSubscription(sub: CableSubscription, max: number, expiresAtMs: number): Promise<void> {
  const ref = `${sub.account_id}|${sub.identifier_hash}`;
  await transact([
    {
      item: {
        Update: {
          TableName: '',
          Key: keys.cableConnection(sub.connection_id),
          UpdateExpression: 'SET subscriptions = list_append(if_not_exists(subscriptions, :empty), :ref)',
          ConditionExpression:
            'attribute_exists(pk) AND (attribute_not_exists(subscriptions) OR size(subscriptions) < :max) AND NOT contains(subscriptions, :one)',
          ExpressionAttributeValues: { ':empty': [], ':ref': [ref], ':max': max, ':one': ref },
        },
      },
      onConflict: () => new SubscriptionRefused(),
    },
    {
      item: put({
        ...keys.cableSubscription(sub.account_id, sub.connection_id, sub.identifier_hash),
        type: 'cable_subscription',
        ...sub,
        [TTL_ATTRIBUTE]: ttlOf(expiresAtMs),
      }),
    },
  ]);
}

/** Removes one subscription of a connection (unsubscribe); true when it was there. */
export async function removeSubscription(connection: CableConnection, accountId: number, identifierHash: string): Promise<boolean> {
  const ref = `${accountId}|${identifierHash}`;
  const index = connection.subscriptions.indexOf(ref);
  if (index < 0) return false;
  await transact([
    {
      item: {
        Update: {
          TableName: '',
          Key: keys.cableConnection(connection.connection_id),
          UpdateExpression: `REMOVE subscriptions[${index}]`,
          ConditionExpression: `subscriptions[${index}] = :ref`,
          ExpressionAttributeValues: { ':ref': ref },
        },
      },
    },
    { item: { Delete: { TableName: '', Key: keys.cableSubscription(accountId, connection.connection_id, identifierHash) } } },
  ]);
  return true;
}

/**
 * Removes a connection and everything subscribed through it ($disconnect, or a GoneException). The
 * subscriptions a caller already knows go first, so once the connection item is gone none of them is left;
 * deleting the connection then stops new subscriptions (they need it) and names any others to remove.
 */
export async function deleteConnection(connectionId: string, known: { account_id: number; identifier_hash: string }[] = []): Promise<void> {
  const remove = (refs: string[]) =>
    batchWriteAll(
      refs.map((ref) => {
        const [account, hash] = ref.split('|');
        return { DeleteRequest: { Key: keys.cableSubscription(Number(account), connectionId, hash) } };
      }),
    );
  const done = new Set(known.map((s) => `${s.account_id}|${s.identifier_hash}`));
  await remove([...done]);
  const out = await db().send(
    new DeleteCommand({ TableName: tableName(), Key: keys.cableConnection(connectionId), ReturnValues: 'ALL_OLD' }),
  );
  await remove(((out.Attributes?.subscriptions as string[] | undefined) ?? []).filter((ref) => !done.has(ref)));
  // Only the call that deleted the connection sees it: its address's socket slot is given back once.
  const addressHash = out.Attributes?.address_hash;
  if (typeof addressHash === 'string') await releaseThrottleSlot(keys.cableAddressCount(addressHash));
}

/**
 * AP176: takes one of a client address's socket slots (`ADD 1` while below `max`, one conditional
 * UpdateItem); false when the address has `max` open. Every take pushes the item's expiry out, and a full
 * count past its expiry starts again at this socket (TTL deletes lazily; a second conditional UpdateItem,
 * only then): counts that lost disconnects left behind vanish once no socket of the address was admitted
 * for a connection's lifetime.
 */
export async function takeSocketSlot(addressHash: string, max: number, expiresAtSeconds: number): Promise<boolean> {
  const key = keys.cableAddressCount(addressHash);
  if (await takeThrottleSlot(key, max, expiresAtSeconds, 'cable_address')) return true;
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET n = :one, #t = :ttl',
        ConditionExpression: '#t < :now',
        ExpressionAttributeNames: { '#t': TTL_ATTRIBUTE },
        ExpressionAttributeValues: { ':one': 1, ':ttl': expiresAtSeconds, ':now': Math.floor(Date.now() / 1000) },
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}

/** AP176: gives a socket slot back (a connection that never got recorded). */
export const releaseSocketSlot = (addressHash: string) => releaseThrottleSlot(keys.cableAddressCount(addressHash));

/** AP151: the live subscriptions of an account (one Query per broadcast event). */
export async function listAccountSubscriptions(accountId: number, nowMs = Date.now()): Promise<CableSubscription[]> {
  const p = keys.cableSubscriptionsOf(accountId);
  const items = await queryPrefix({ pk: p.pk }, p.skPrefix);
  // TTL removal is lazy: an expired item may still be read.
  return items.filter((i) => Number(i[TTL_ATTRIBUTE] ?? Infinity) * 1000 > nowMs).map((i) => record<CableSubscription>(i)!);
}

/** AP152: connections made after a moment, oldest first (the pinger's incremental look). */
export async function listConnectionsAfter(connectedAtMs: number): Promise<CableConnection[]> {
  const k = keys.cableConnectionsAfter(connectedAtMs);
  const out: CableConnection[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: INDEXES.gsi1.name,
        KeyConditionExpression: '#p = :p AND #s > :s',
        ExpressionAttributeNames: { '#p': INDEXES.gsi1.pk, '#s': INDEXES.gsi1.sk },
        ExpressionAttributeValues: { ':p': k.gsi1pk, ':s': k.after },
        ExclusiveStartKey: start,
      }),
    );
    for (const i of page.Items ?? []) out.push(record<CableConnection>(i)!);
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}

export async function markWelcomed(connectionId: string): Promise<void> {
  await db()
    .send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.cableConnection(connectionId),
        UpdateExpression: 'SET welcomed = :t',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':t': true },
      }),
    )
    .catch((err) => {
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
    });
}

/** AP153: marks a user or contact present now; returns when it was last seen before (undefined: never). */
export async function touchPresence(p: PresenceRecord, lifetimeSeconds: number): Promise<number | undefined> {
  const out = await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...keys.presence(p.account_id, p.kind === 'user' ? 'USER' : 'CONTACT', p.id),
        type: 'presence',
        ...p,
        [TTL_ATTRIBUTE]: p.seen_at + lifetimeSeconds,
      },
      ReturnValues: 'ALL_OLD',
    }),
  );
  return out.Attributes ? Number(out.Attributes.seen_at) : undefined;
}

/** AP153: everyone of an account seen since a moment (seconds). */
export async function listPresence(accountId: number, sinceSeconds: number): Promise<PresenceRecord[]> {
  const p = keys.presenceOf(accountId);
  const items = await queryPrefix({ pk: p.pk }, p.skPrefix);
  return items.map((i) => record<PresenceRecord>(i)!).filter((r) => r.seen_at >= sinceSeconds);
}

/**
 * The contact inbox holding a pubsub token (the contact's socket credential): where the token names one,
 * the contact's contact inboxes in that inbox (AP263), else, or when none there holds it (moved in a
 * merge), the token index (AP154). The caller still compares the token.
 */
export async function findContactInboxByPubsubToken(token: string): Promise<ContactInboxRecord | undefined> {
  const at = pubsubTokenLocation(token);
  if (at) {
    const p = keys.contactInboxesInInbox(at.account_id, at.contact_id, at.inbox_id);
    const held = (await queryPrefix({ pk: p.pk }, p.skPrefix)).find((i) => i.pubsub_token === token);
    if (held) return record<ContactInboxRecord>(held);
  }
  const k = keys.contactInboxByPubsub(token);
  const [item] = await queryPrefix({ gsi1pk: k.gsi1pk }, k.skPrefix, { limit: 1 });
  return record<ContactInboxRecord>(item);
}
