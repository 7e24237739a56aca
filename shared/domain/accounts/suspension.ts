import { getAccount, getAccountNow } from '#shared/db/repositories/identity.ts';
import { forbidden, notFound } from '#shared/errors.ts';
import type { AccountRecord } from '#shared/model/identity.ts';

// A suspended account (platform PATCH `status: "suspended"`) is refused on every interface with one
// answer (Chatwoot: 401 "Account is suspended"; here 403 with code `account_suspended`, like every other
// denial to a known caller), and the event pipeline sends nothing for it. Sign-in, /cable and anything
// added later call these same functions.

export const isSuspended = (account: Pick<AccountRecord, 'status'>): boolean => account.status === 'suspended';

export const accountSuspended = () => forbidden('Account is suspended', 'account_suspended');

/** Throws the 403 `account_suspended` error for a suspended account. */
export function assertAccountActive(account: Pick<AccountRecord, 'status'>): void {
  if (isSuspended(account)) throw accountSuspended();
}

/** The account by id, 404 (as `what`) when absent, 403 when suspended. */
export async function activeAccount(accountId: number, what = 'Account'): Promise<AccountRecord> {
  const account = await getAccount(accountId);
  if (!account) throw notFound(what);
  assertAccountActive(account);
  return account;
}

/**
 * Whether an account is suspended, each account read once per use of the returned function (one
 * pipeline batch): a suspension takes effect from the next batch on.
 */
export function suspendedAccounts(): (accountId: number) => Promise<boolean> {
  const seen = new Map<number, Promise<boolean>>();
  return (accountId) => {
    let known = seen.get(accountId);
    if (!known) {
      known = getAccount(accountId).then((a) => !!a && isSuspended(a));
      seen.set(accountId, known);
    }
    return known;
  };
}

/**
 * The dispatcher's check: an account that is suspended, or deleted (its data is being purged: an event
 * still queued from before the deletion must not write report facts, notifications or deliveries
 * behind the purge). Each account read once per use of the returned function (one pipeline batch).
 */
export function frozenAccounts(): (accountId: number) => Promise<false | 'suspended' | 'deleted'> {
  const seen = new Map<number, Promise<false | 'suspended' | 'deleted'>>();
  return (accountId) => {
    let known = seen.get(accountId);
    if (!known) {
      known = Number.isSafeInteger(accountId)
        ? getAccount(accountId)
            // A cached absence may be an account made since (ids are handed out in order): only the table now says deleted.
            .then((a) => a ?? getAccountNow(accountId))
            .then((a) => (!a ? 'deleted' : isSuspended(a) ? 'suspended' : false))
        : Promise.resolve(false);
      seen.set(accountId, known);
    }
    return known;
  };
}
