import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import * as keys from '../keys.ts';
import type { Key } from '../keys.ts';
import { INDEXES, TTL_ATTRIBUTE } from '../table.ts';
import { ConflictError, put, transact, type TxItem } from '../transact.ts';
import type { NotificationRecord, NotificationSettingsRecord, PushSubscriptionRecord } from '#shared/model/notifications.ts';
import { getItem, getMany, queryItems, queryPrefix, record } from './common.ts';

// Access patterns of the notifications area (numbers as in docs/data-model.md#keys-and-access-patterns).

const CLAIM_LIFETIME_SECONDS = 7 * 24 * 3600;

type Raw = TxItem['item'];
const update = (
  Key: Key,
  UpdateExpression: string,
  opts: { condition?: string; names?: Record<string, string>; values?: Record<string, unknown> } = {},
): Raw => ({
  Update: {
    TableName: '',
    Key,
    UpdateExpression,
    ...(opts.condition ? { ConditionExpression: opts.condition } : {}),
    ...(opts.names ? { ExpressionAttributeNames: opts.names } : {}),
    ...(opts.values ? { ExpressionAttributeValues: opts.values } : {}),
  },
});

const counterMove = (n: NotificationRecord, total: number, unread: number): Raw =>
  update(keys.notificationCounter(n.account_id, n.user_id), 'ADD #t :t, #u :u SET #type = :type', {
    names: { '#t': 'total', '#u': 'unread', '#type': 'type' },
    values: { ':t': total, ':u': unread, ':type': 'notification_counter' },
  });

const notificationItem = (n: NotificationRecord) => ({
  ...keys.notification(n.account_id, n.user_id, n.id),
  ...(n.read_at === null ? keys.unreadNotificationIndex(n.account_id, n.user_id, n.id) : {}),
  type: 'notification',
  ...n,
});

/**
 * A new unread notification and its counters, once per (event, user): the claim in the same transaction
 * makes a retried pipeline batch a no-op. False when this event already notified the user.
 */
export async function createNotification(n: NotificationRecord, eventId: string): Promise<boolean> {
  try {
    await transact([
      {
        item: put(
          {
            ...keys.notificationClaim(eventId, n.user_id),
            type: 'notification_claim',
            [TTL_ATTRIBUTE]: n.created_at + CLAIM_LIFETIME_SECONDS,
          },
          { ifNew: true },
        ),
      },
      { item: put(notificationItem(n), { ifNew: true }) },
      { item: counterMove(n, 1, 1) },
    ]);
    return true;
  } catch (err) {
    if (err instanceof ConflictError && err.index === 0) return false;
    throw err;
  }
}

/** AP140: one notification of a user in an account. */
export const getNotification = (accountId: number, userId: number, id: number, consistent = false) =>
  getItem<NotificationRecord>(keys.notification(accountId, userId, id), consistent);

/** AP141: the first `limit` notifications of a user in an account, newest first (or oldest first). */
export async function listNotifications(accountId: number, userId: number, limit: number, newestFirst = true, unreadOnly = false) {
  const p = unreadOnly ? keys.unreadNotificationsOf(accountId, userId) : keys.notificationsOf(accountId, userId);
  const items = await queryItems(
    {
      ...(unreadOnly
        ? {
            IndexName: INDEXES.gsi1.name,
            KeyConditionExpression: '#p = :p AND begins_with(#s, :s)',
            ExpressionAttributeNames: { '#p': INDEXES.gsi1.pk, '#s': INDEXES.gsi1.sk },
          }
        : { KeyConditionExpression: '#p = :p AND begins_with(#s, :s)', ExpressionAttributeNames: { '#p': 'pk', '#s': 'sk' } }),
      ExpressionAttributeValues: { ':p': 'gsi1pk' in p ? p.gsi1pk : p.pk, ':s': p.skPrefix },
      ScanIndexForward: !newestFirst,
    },
    limit,
  );
  return items.map((i) => record<NotificationRecord>(i)!);
}

/** AP146: every notification of a user in an account (an inbox's purge picks those of its conversations). */
export async function listAllNotifications(accountId: number, userId: number): Promise<NotificationRecord[]> {
  const p = keys.notificationsOf(accountId, userId);
  return (await queryPrefix({ pk: p.pk }, p.skPrefix)).map((i) => record<NotificationRecord>(i)!);
}

/** AP142: every unread notification of a user in an account (sparse gsi1). */
export async function listUnreadNotifications(accountId: number, userId: number): Promise<NotificationRecord[]> {
  const p = keys.unreadNotificationsOf(accountId, userId);
  return (await queryPrefix({ gsi1pk: p.gsi1pk }, p.skPrefix)).map((i) => record<NotificationRecord>(i)!);
}

/** AP143: the total and unread counts of a user in an account (strongly consistent). */
export async function getNotificationCounts(accountId: number, userId: number) {
  const c = await getItem<{ total?: number; unread?: number }>(keys.notificationCounter(accountId, userId), true);
  return { total: Math.max(0, c?.total ?? 0), unread: Math.max(0, c?.unread ?? 0) };
}

/** Marks read (or unread); false when it already was, so the counter moves only once. */
export async function setNotificationRead(n: NotificationRecord, readAt: number | null): Promise<boolean> {
  const key = keys.notification(n.account_id, n.user_id, n.id);
  const idx = keys.unreadNotificationIndex(n.account_id, n.user_id, n.id);
  const item =
    readAt !== null
      ? update(key, 'SET read_at = :r REMOVE #gp, #gs', {
          condition: 'attribute_exists(pk) AND attribute_type(read_at, :null)',
          names: { '#gp': INDEXES.gsi1.pk, '#gs': INDEXES.gsi1.sk },
          values: { ':r': readAt, ':null': 'NULL' },
        })
      : update(key, 'SET read_at = :r, #gp = :gp, #gs = :gs', {
          condition: 'attribute_exists(pk) AND NOT attribute_type(read_at, :null)',
          names: { '#gp': INDEXES.gsi1.pk, '#gs': INDEXES.gsi1.sk },
          values: { ':r': null, ':null': 'NULL', ':gp': idx.gsi1pk, ':gs': idx.gsi1sk },
        });
  try {
    await transact([{ item }, { item: counterMove(n, 0, readAt !== null ? -1 : 1) }]);
    return true;
  } catch (err) {
    if (err instanceof ConflictError) return false;
    throw err;
  }
}

/** AP147: the notifications of a user in an account that were ever snoozed (sparse gsi2; few). */
export async function listSnoozedNotifications(accountId: number, userId: number): Promise<NotificationRecord[]> {
  const p = keys.snoozedNotificationsOf(accountId, userId);
  return (await queryPrefix({ gsi2pk: p.gsi2pk }, p.skPrefix)).map((i) => record<NotificationRecord>(i)!);
}

/** Snoozes a notification until `until` (Unix seconds), entering it in the snoozed index; false when it is gone. */
export async function setNotificationSnooze(n: NotificationRecord, until: number): Promise<boolean> {
  const idx = keys.snoozedNotificationIndex(n.account_id, n.user_id, n.id);
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.notification(n.account_id, n.user_id, n.id),
        UpdateExpression: 'SET snoozed_until = :u, #gp = :gp, #gs = :gs',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#gp': INDEXES.gsi2.pk, '#gs': INDEXES.gsi2.sk },
        ExpressionAttributeValues: { ':u': until, ':gp': idx.gsi2pk, ':gs': idx.gsi2sk },
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}

/** Deletes a notification and moves the counters; false when it was already gone. */
export async function deleteNotification(n: NotificationRecord): Promise<boolean> {
  try {
    await transact([
      {
        item: {
          Delete: {
            TableName: '',
            Key: keys.notification(n.account_id, n.user_id, n.id),
            ConditionExpression: `attribute_exists(pk) AND ${n.read_at === null ? 'attribute_type(read_at, :null)' : 'NOT attribute_type(read_at, :null)'}`,
            ExpressionAttributeValues: { ':null': 'NULL' },
          },
        },
      },
      { item: counterMove(n, -1, n.read_at === null ? -1 : 0) },
    ]);
    return true;
  } catch (err) {
    if (err instanceof ConflictError) return false;
    throw err;
  }
}

/** AP144: the notification settings of several users of one account (absent: never saved). */
export const getNotificationSettings = (accountId: number, userIds: number[]) =>
  getMany<NotificationSettingsRecord>(userIds.map((id) => keys.notificationSettings(accountId, id)));

export async function putNotificationSettings(s: NotificationSettingsRecord): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.notificationSettings(s.account_id, s.user_id), type: 'notification_settings', ...s },
    }),
  );
}

/** AP145: one push subscription of a user, by the hash of its identifier (endpoint or device token). */
export async function putPushSubscription(s: PushSubscriptionRecord, identifierHash: string): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.pushSubscription(s.user_id, identifierHash), type: 'push_subscription', ...s },
    }),
  );
}

export const getPushSubscription = (userId: number, identifierHash: string) =>
  getItem<PushSubscriptionRecord>(keys.pushSubscription(userId, identifierHash), true);

export async function deletePushSubscription(userId: number, identifierHash: string): Promise<void> {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.pushSubscription(userId, identifierHash) }));
}
