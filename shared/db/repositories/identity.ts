import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import * as keys from '../keys.ts';
import type { PermissibleKind } from '../keys.ts';
import { del, put, transact, type TxItem } from '../transact.ts';
import { taken } from '#shared/errors.ts';
import { inboxSummariesStarted } from './inbox-summaries.ts';
import { purgeJobItem, type PurgeJobRecord } from './purge.ts';
import type {
  AccountRecord,
  AccountUserRecord,
  AgentBotRecord,
  PlatformAppRecord,
  TokenRecord,
  UserRecord,
} from '#shared/model/identity.ts';
import { getItem, getItemNow, getMany, queryPrefix, record } from './common.ts';
import { applyChanges, ensureMaps, mapsToCreate, updateItem, type AttributeChanges } from './versioned.ts';

// Access patterns of the identity area (numbers as in docs/data-model.md#keys-and-access-patterns).

/** AP1: the owner of an access token, by the token's SHA-256. */
export const getToken = (hash: string) => getItem<TokenRecord>(keys.token(hash));

export const tokenItem = (hash: string, owner: TokenRecord) => ({ ...keys.token(hash), type: 'token', ...owner });

export async function createPlatformApp(app: PlatformAppRecord, tokenHash: string): Promise<void> {
  await transact([
    { item: put({ ...keys.platformApp(app.id), type: 'platform_app', ...app }, { ifNew: true }) },
    { item: put(tokenItem(tokenHash, { owner_type: 'platform_app', owner_id: app.id }), { ifNew: true }) },
  ]);
}

/** AP3: may this platform app touch this object? */
export async function isPermissible(appId: number, kind: PermissibleKind, id: number): Promise<boolean> {
  return (await getItem(keys.permissible(appId, kind, id))) !== undefined;
}

/** AP4: ids of the objects of one kind a platform app created. */
export async function listPermissible(appId: number, kind: PermissibleKind): Promise<number[]> {
  const p = keys.permissiblePrefix(appId, kind);
  const items = await queryPrefix({ pk: p.pk }, p.skPrefix);
  return items.map((i) => keys.permissibleIdFromSk(String(i.sk)));
}

export const permissibleItem = (appId: number, kind: PermissibleKind, id: number) =>
  put({ ...keys.permissible(appId, kind, id), type: 'permissible' });

/** AP5: an account. */
export const getAccount = (id: number) => getItem<AccountRecord>(keys.account(id));

/** AP5 too: the account as stored now (consistent, never from the dispatcher's cache). */
export const getAccountNow = (id: number) => getItemNow<AccountRecord>(keys.account(id));

export const getAccounts = (ids: number[]) => getMany<AccountRecord>(ids.map((id) => keys.account(id)));

export const accountItem = (a: AccountRecord) => ({ ...keys.account(a.id), type: 'account', ...a });

export async function putAccount(a: AccountRecord): Promise<void> {
  await db().send(new PutCommand({ TableName: tableName(), Item: accountItem(a) }));
}

/** AP6: a user. */
export const getUser = (id: number) => getItem<UserRecord>(keys.user(id));

export const getUsers = (ids: number[]) => getMany<UserRecord>(ids.map((id) => keys.user(id)));

export const userItem = (u: UserRecord) => ({ ...keys.user(u.id), type: 'user', ...u });

export const userEmailKey = (email: string) => keys.unique('USER_EMAIL', email.toLowerCase());

/** AP6 after a lost race: the user, strongly consistent. */
export const getUserFresh = (id: number) => getItem<UserRecord>(keys.user(id), true);

/**
 * Changes a user on its attributes (custom attributes merged key by key, the rest replaced), so that
 * concurrent changes never undo each other; undefined when the user is gone.
 */
export const changeUser = (id: number, changes: AttributeChanges) => applyChanges<UserRecord>(keys.user(id), changes);

/**
 * The same with the email's uniqueness claim moved in one transaction, on condition that the email is
 * still the one read (else StaleWrite); `onTaken` names the error when another user holds the new one.
 */
export async function changeUserEmail(
  before: UserRecord,
  email: string,
  changes: AttributeChanges,
  onTaken: () => Error,
): Promise<UserRecord | undefined> {
  const key = keys.user(before.id);
  const missing = mapsToCreate(before as unknown as Record<string, unknown>, changes);
  if (missing.length) await ensureMaps(key, missing);
  const claim = userEmailKey(email);
  const moves = claim.sk !== userEmailKey(before.email).sk || claim.pk !== userEmailKey(before.email).pk;
  await transact([
    updateItem(key, {
      ...changes,
      set: { ...changes.set, email },
      condition: {
        expression: [changes.condition?.expression, '#email = :before'].filter(Boolean).join(' AND '),
        names: { ...changes.condition?.names, '#email': 'email' },
        values: { ...changes.condition?.values, ':before': before.email },
      },
    }),
    ...(moves
      ? [
          { item: put({ ...claim, type: 'unique', owner_id: before.id }, { ifNew: true }), onConflict: onTaken },
          { item: del(userEmailKey(before.email)) },
        ]
      : []),
  ]);
  return getUserFresh(before.id);
}

/** AP7: the user that holds an email address. */
export async function getUserIdByEmail(email: string): Promise<number | undefined> {
  const item = await getItem<{ owner_id: number }>(userEmailKey(email));
  return item?.owner_id;
}

/** AP8: one membership. */
export const getAccountUser = (accountId: number, userId: number) => getItem<AccountUserRecord>(keys.accountUser(accountId, userId));

/** AP6 with AP8: users with their memberships of an account, in one BatchGet, in the order asked. */
export async function getMembers(
  accountId: number,
  userIds: number[],
): Promise<{ user: UserRecord | undefined; membership: AccountUserRecord | undefined }[]> {
  const items = await getMany<object>(userIds.flatMap((id) => [keys.user(id), keys.accountUser(accountId, id)]));
  return userIds.map((_, n) => ({
    user: items[2 * n] as UserRecord | undefined,
    membership: items[2 * n + 1] as AccountUserRecord | undefined,
  }));
}

/** AP9: the memberships of an account. */
export async function listAccountUsers(accountId: number): Promise<AccountUserRecord[]> {
  const p = keys.accountUsersPrefix(accountId);
  return (await queryPrefix({ pk: p.pk }, p.skPrefix)).map((i) => record<AccountUserRecord>(i)!);
}

/** AP10: the memberships of a user (gsi1). */
export async function listUserAccounts(userId: number): Promise<AccountUserRecord[]> {
  const p = keys.userAccountsPrefix(userId);
  return (await queryPrefix({ gsi1pk: p.gsi1pk }, p.skPrefix)).map((i) => record<AccountUserRecord>(i)!);
}

export const accountUserItem = (m: AccountUserRecord) => ({
  ...keys.accountUser(m.account_id, m.user_id),
  ...keys.accountUserIndex(m.account_id, m.user_id),
  type: 'account_user',
  ...m,
});

export async function putAccountUser(m: AccountUserRecord): Promise<void> {
  await db().send(new PutCommand({ TableName: tableName(), Item: accountUserItem(m) }));
}

export const deleteAccountUserItem = (accountId: number, userId: number) => del(keys.accountUser(accountId, userId));

/** AP11: an agent bot. */
export const getAgentBot = (id: number) => getItem<AgentBotRecord>(keys.agentBot(id));

export const getAgentBots = (ids: number[]) => getMany<AgentBotRecord>(ids.map((id) => keys.agentBot(id)));

/** AP12: the bots of an account, or the system bots when `accountId` is null (gsi1). */
export async function listAgentBots(accountId: number | null): Promise<AgentBotRecord[]> {
  const p = keys.agentBotsOf(accountId);
  return (await queryPrefix({ gsi1pk: p.gsi1pk }, p.skPrefix)).map((i) => record<AgentBotRecord>(i)!);
}

export const agentBotItem = (b: AgentBotRecord) => ({
  ...keys.agentBot(b.id),
  ...keys.agentBotIndex(b.id, b.account_id),
  type: 'agent_bot',
  ...b,
});

// ── writes of several items at once (each all or nothing; long lists in transactions of 100) ─────────

const inChunks = async (items: TxItem[]) => {
  for (let i = 0; i < items.length; i += 100) await transact(items.slice(i, i + 100));
};

const userItems = (user: UserRecord): TxItem[] => [
  { item: put(userItem(user), { ifNew: true }) },
  { item: put(tokenItem(user.token_hash, { owner_type: 'user', owner_id: user.id }), { ifNew: true }) },
  { item: put({ ...userEmailKey(user.email), type: 'unique', owner_id: user.id }, { ifNew: true }), onConflict: () => taken('email') },
];

/** A platform app's new user: the user, its token, its email claim (`taken` when another user holds it) and the app's permission. */
export async function createPlatformUser(user: UserRecord, appId: number): Promise<void> {
  await transact([...userItems(user), { item: permissibleItem(appId, 'USER', user.id) }]);
}

/** Removes a user with its token, its email claim, the app's permission and its memberships. */
export async function deletePlatformUser(appId: number, user: UserRecord, accountIds: number[]): Promise<void> {
  await inChunks([
    { item: del(keys.user(user.id)) },
    { item: del(keys.token(user.token_hash)) },
    { item: del(userEmailKey(user.email)) },
    { item: del(keys.permissible(appId, 'USER', user.id)) },
    ...accountIds.map((a) => ({ item: deleteAccountUserItem(a, user.id) })),
  ]);
}

/** A platform app's new account, with the app's permission. */
export async function createPlatformAccount(account: AccountRecord, appId: number): Promise<void> {
  // A new account has every inbox summary it has (none): AP28 reads the summaries from the start.
  await transact([
    { item: put(accountItem(account), { ifNew: true }) },
    { item: permissibleItem(appId, 'ACCOUNT', account.id) },
    inboxSummariesStarted(account.id),
  ]);
}

/**
 * Removes an account, the app's permission and its memberships; the purge job goes in the first transaction
 * with the account item, so everything else of the account follows in the pipeline.
 */
export async function deletePlatformAccount(
  appId: number,
  accountId: number,
  memberIds: number[],
  job: Omit<PurgeJobRecord, 'step' | 'chunks' | 'deleted'>,
): Promise<void> {
  await inChunks([
    { item: del(keys.account(accountId)) },
    purgeJobItem(job),
    { item: del(keys.permissible(appId, 'ACCOUNT', accountId)) },
    ...memberIds.map((u) => ({ item: deleteAccountUserItem(accountId, u) })),
  ]);
}

/** Removes one membership (none is no error). */
export async function deleteAccountUser(accountId: number, userId: number): Promise<void> {
  await transact([{ item: deleteAccountUserItem(accountId, userId) }]);
}

/** A new agent bot with its token, and the permission of the platform app that made it (if one did). */
export async function createAgentBot(bot: AgentBotRecord, appId?: number): Promise<void> {
  await transact([
    { item: put(agentBotItem(bot), { ifNew: true }) },
    { item: put(tokenItem(bot.token_hash, { owner_type: 'agent_bot', owner_id: bot.id }), { ifNew: true }) },
    ...(appId !== undefined ? [{ item: permissibleItem(appId, 'BOT', bot.id) }] : []),
  ]);
}

/** Removes a platform app's bot with its token and the app's permission. */
export async function deletePlatformBotItems(appId: number, bot: AgentBotRecord): Promise<void> {
  await transact([
    { item: del(keys.agentBot(bot.id)) },
    { item: del(keys.token(bot.token_hash)) },
    { item: del(keys.permissible(appId, 'BOT', bot.id)) },
  ]);
}
