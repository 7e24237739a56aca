import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { db, tableName } from '../client.ts';
import * as keys from '../keys.ts';
import type { Key } from '../keys.ts';
import { TTL_ATTRIBUTE } from '../table.ts';
import type { OneTimeTokenRecord, PasswordResetRecord, SessionRecord } from '#shared/model/sessions.ts';
import { getItem, getMany, queryPrefix, record } from './common.ts';

// Access patterns of the sessions area (numbers as in docs/data-model.md#keys-and-access-patterns).

/** AP120: the session of an access token (by its SHA-256). */
export const getSession = (tokenHash: string) => getItem<SessionRecord>(keys.session(tokenHash));

/**
 * AP120 with the AP5 account of the path, one round trip (the session twin of AP1+5); `extra` keys (the
 * owner's, when the access-token names its user) ride along in the same BatchGet.
 */
export async function getSessionAndAccount<A>(tokenHash: string, accountId: number | undefined, extra: Key[] = []) {
  const [session, account, ...rest] = await getMany<SessionRecord | A | object>([
    keys.session(tokenHash),
    ...(accountId === undefined ? [] : [keys.account(accountId)]),
    ...extra,
  ]);
  return accountId === undefined
    ? { session: session as SessionRecord | undefined, account: undefined, extra: [account, ...rest] as (object | undefined)[] }
    : { session: session as SessionRecord | undefined, account: account as A | undefined, extra: rest as (object | undefined)[] };
}

export async function putSession(s: SessionRecord): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.session(s.token_hash), ...keys.sessionIndex(s.user_id, s.client), type: 'session', ...s, [TTL_ATTRIBUTE]: s.expiry },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

/** Deletes a session if it still belongs to this client; false when it was already gone. */
export async function deleteSession(tokenHash: string, client?: string): Promise<boolean> {
  try {
    await db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keys.session(tokenHash),
        ConditionExpression: client ? 'attribute_exists(pk) AND #c = :c' : 'attribute_exists(pk)',
        ...(client ? { ExpressionAttributeNames: { '#c': 'client' }, ExpressionAttributeValues: { ':c': client } } : {}),
      }),
    );
    return true;
  } catch (e) {
    if (e instanceof ConditionalCheckFailedException) return false;
    throw e;
  }
}

/** AP121: the sessions of a user (gsi1), with the token hash that keys each. */
export async function listUserSessions(userId: number): Promise<SessionRecord[]> {
  const p = keys.sessionsOf(userId);
  return (await queryPrefix({ gsi1pk: p.gsi1pk }, p.skPrefix)).map((i) => record<SessionRecord>(i)!);
}

export async function putOneTimeToken(key: Key, kind: string, t: OneTimeTokenRecord): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...key, type: kind, ...t, [TTL_ATTRIBUTE]: t.expires_at },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

/** AP123: takes a one-time token (SSO link): deleted and returned in one call, so it opens at most once. */
export async function takeOneTimeToken(key: Key): Promise<OneTimeTokenRecord | undefined> {
  try {
    const out = await db().send(
      new DeleteCommand({ TableName: tableName(), Key: key, ConditionExpression: 'attribute_exists(pk)', ReturnValues: 'ALL_OLD' }),
    );
    return record<OneTimeTokenRecord>(out.Attributes);
  } catch (e) {
    if (e instanceof ConditionalCheckFailedException) return undefined;
    throw e;
  }
}

/** Reset items outlive their link a day (as tombstones of a used one). */
const RESET_ITEM_EXTRA_SECONDS = 24 * 3600;

/** AP124: a user's password reset item. */
export const getPasswordReset = (userId: number) => getItem<PasswordResetRecord>(keys.passwordReset(userId), true);

/**
 * AP124: issues a user's reset link, replacing whatever link was there — unless a newer request already
 * issued one (or used one) meanwhile; false then.
 */
export async function putPasswordReset(r: PasswordResetRecord): Promise<boolean> {
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keys.passwordReset(r.user_id), type: 'password_reset', ...r, [TTL_ATTRIBUTE]: r.expires_at + RESET_ITEM_EXTRA_SECONDS },
        ConditionExpression: 'attribute_not_exists(pk) OR requested_at <= :t',
        ExpressionAttributeValues: { ':t': r.requested_at },
      }),
    );
    return true;
  } catch (e) {
    if (e instanceof ConditionalCheckFailedException) return false;
    throw e;
  }
}

/**
 * AP124: uses a reset link: only the user's newest, unused, unexpired token matches, and the same
 * conditional update removes it, so it opens at most once. The item as it was, or undefined.
 */
export async function usePasswordReset(userId: number, tokenHash: string, at: number): Promise<PasswordResetRecord | undefined> {
  try {
    const out = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.passwordReset(userId),
        UpdateExpression: 'SET used_at = :now REMOVE token_hash, sealed_token',
        ConditionExpression: 'token_hash = :h AND expires_at > :now',
        ExpressionAttributeValues: { ':h': tokenHash, ':now': at },
        ReturnValues: 'ALL_OLD',
      }),
    );
    return record<PasswordResetRecord>(out.Attributes);
  } catch (e) {
    if (e instanceof ConditionalCheckFailedException) return undefined;
    throw e;
  }
}

/** AP124: kills a user's reset link (the password or the email changed, as Devise clears it then). */
export async function cancelPasswordReset(userId: number, at: number): Promise<void> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.passwordReset(userId),
        UpdateExpression: 'SET used_at = :now REMOVE token_hash, sealed_token',
        ConditionExpression: 'attribute_exists(token_hash)',
        ExpressionAttributeValues: { ':now': at },
      }),
    );
  } catch (e) {
    if (!(e instanceof ConditionalCheckFailedException)) throw e;
  }
}
