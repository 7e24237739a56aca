import * as keys from '../keys.ts';
import { check, del, put, transact, type TxItem } from '../transact.ts';
import type { AccountUserRecord, UserRecord } from '#shared/model/identity.ts';
import { notFound, taken } from '#shared/errors.ts';
import { accountUserItem, permissibleItem, tokenItem, userEmailKey, userItem } from './identity.ts';
import { StaleWrite } from './versioned.ts';
import { getItem } from './common.ts';

// Writes of the agents area: a membership (and, for a new person, the user) in one transaction.

/** AP8 after a lost race: one membership, strongly consistent. */
export const getMembershipFresh = (accountId: number, userId: number) =>
  getItem<AccountUserRecord>(keys.accountUser(accountId, userId), true);

/** A new user and its first membership, all or nothing; the email sentinel refuses a second user. */
export async function createUserWithMembership(user: UserRecord, membership: AccountUserRecord): Promise<void> {
  await transact([
    { item: put(userItem(user), { ifNew: true }) },
    { item: put(tokenItem(user.token_hash, { owner_type: 'user', owner_id: user.id }), { ifNew: true }) },
    { item: put({ ...userEmailKey(user.email), type: 'unique', owner_id: user.id }, { ifNew: true }), onConflict: () => taken('email') },
    { item: put(accountUserItem(membership), { ifNew: true }) },
    ...(user.created_by_app !== null ? [{ item: permissibleItem(user.created_by_app, 'USER', user.id) }] : []),
  ]);
}

/** A membership of an existing user; an existing one is `taken` (Chatwoot: one account user per user). */
export async function addMembership(membership: AccountUserRecord): Promise<void> {
  await transact([
    { item: check(keys.user(membership.user_id), { expression: 'attribute_exists(pk)' }), onConflict: () => notFound('User') },
    { item: put(accountUserItem(membership), { ifNew: true }), onConflict: () => taken('email', 'is already an agent of this account') },
  ]);
}

/** A membership changed by an agent update, conditioned on the one read (else StaleWrite). */
export async function saveMembership(before: AccountUserRecord, after: AccountUserRecord): Promise<void> {
  await transact([
    {
      item: put(accountUserItem(after), { condition: { expression: 'updated_at = :u', values: { ':u': before.updated_at } } }),
      onConflict: () => new StaleWrite(),
    },
  ]);
}

/** Removes a membership with the user's inbox and team memberships in the account (first 99 in one transaction). */
export async function removeMembership(accountId: number, userId: number, inboxIds: number[], teamIds: number[]): Promise<void> {
  const items: TxItem[] = [
    { item: del(keys.accountUser(accountId, userId), { expression: 'attribute_exists(pk)' }), onConflict: () => notFound('Agent') },
    ...inboxIds.map((i) => ({ item: del(keys.inboxMember(accountId, i, userId)) })),
    ...teamIds.map((t) => ({ item: del(keys.teamMember(accountId, t, userId)) })),
  ];
  for (let i = 0; i < items.length; i += 100) await transact(items.slice(i, i + 100));
}

/** Deletes a user that belongs to nobody any more: the record, its token and its email claim. */
export async function deleteLoneUser(user: UserRecord): Promise<void> {
  await transact([{ item: del(keys.user(user.id)) }, { item: del(keys.token(user.token_hash)) }, { item: del(userEmailKey(user.email)) }]);
}
