import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { db, tableName } from '../client.ts';
import { keys, type Key } from '../keys.ts';
import { TTL_ATTRIBUTE } from '../table.ts';
import type { OneTimeTokenRecord, SessionRecord } from '../../domain/sessions/model.ts';
import { getItem, getMany, queryPrefix, record } from './common.ts';

// Access patterns of the sessions area (numbers as in the README's access-pattern table).

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

/** AP122: failed sign-ins counted in the current window, for several scopes at once. */
export async function getSignInCounters(counterKeys: Key[]): Promise<number[]> {
  const found = await getMany<{ n: number }>(counterKeys);
  return found.map((c) => c?.n ?? 0);
}

export async function countFailedSignIn(key: Key, expiresAt: number): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'ADD n :one SET #t = :ttl, #type = :type',
      ExpressionAttributeNames: { '#t': TTL_ATTRIBUTE, '#type': 'type' },
      ExpressionAttributeValues: { ':one': 1, ':ttl': expiresAt, ':type': 'sign_in_counter' },
    }),
  );
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

/** AP123: takes a one-time token: deleted and returned in one call, so it opens at most once. */
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
