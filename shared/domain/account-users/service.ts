import { nextId } from '#shared/db/ids.ts';
import { deleteAccountUser, getAccountUser, isPermissible, listAccountUsers, putAccountUser } from '#shared/db/repositories/identity.ts';
import { invalidField } from '#shared/errors.ts';
import { permittedAccount } from '../accounts/service.ts';
import type { AccountUserRecord } from '#shared/model/identity.ts';
import { now } from '#shared/model/time.ts';
import type { NewAccountUser } from './schemas.ts';

/** Raw account_users row (docs/chatwoot.md#platform-account-users). */
const accountUserJson = (m: AccountUserRecord) => ({ ...m });

/** Contract endpoint 11 (docs/contract.md#endpoints). */
export async function listAccountUsersOf(appId: number, accountId: number) {
  await permittedAccount(appId, accountId);
  return (await listAccountUsers(accountId)).map(accountUserJson);
}

/**
 * Adds a user to the account, or changes the role of an existing member. Chatwoot lets an app link
 * any user id; here the user must be one this app created, so no app can reach another app's users.
 */
export async function upsertAccountUser(appId: number, accountId: number, input: NewAccountUser) {
  await permittedAccount(appId, accountId);
  if (!(await isPermissible(appId, 'USER', input.user_id))) {
    throw invalidField('user_id', 'User must exist', 'not_found');
  }
  const existing = await getAccountUser(accountId, input.user_id);
  const t = now();
  const row: AccountUserRecord = existing
    ? { ...existing, role: input.role, updated_at: t }
    : {
        id: await nextId('account_user'),
        account_id: accountId,
        user_id: input.user_id,
        role: input.role,
        inviter_id: null,
        created_at: t,
        updated_at: t,
        active_at: null,
        availability: 'offline',
        auto_offline: true,
        custom_role_id: null,
        agent_capacity_policy_id: null,
      };
  await putAccountUser(row);
  return accountUserJson(row);
}

/** Removes a membership; removing one that does not exist is not an error (as in Chatwoot). */
export async function removeAccountUser(appId: number, accountId: number, userId: number): Promise<void> {
  await permittedAccount(appId, accountId);
  await deleteAccountUser(accountId, userId);
}
