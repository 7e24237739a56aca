import { nextId } from '#shared/db/ids.ts';
import {
  createPlatformAccount,
  deletePlatformAccount,
  getAccount,
  getAccounts,
  isPermissible,
  listAccountUsers,
  listPermissible,
  putAccount,
} from '#shared/db/repositories/identity.ts';
import { notFound } from '#shared/errors.ts';
import type { AccountRecord } from '#shared/model/identity.ts';
import { now } from '#shared/model/time.ts';
import type { AccountSettings, AccountUpdate, NewAccount } from './schemas.ts';
import { accountJson } from './view.ts';

// Features a new account starts with (installation defaults), before the request's own `features`.
const DEFAULT_FEATURES = [
  'agent_bots',
  'agent_management',
  'automations',
  'canned_responses',
  'channel_website',
  'crm',
  'custom_attributes',
  'inbox_management',
  'integrations',
  'labels',
  'macros',
  'reports',
  'team_management',
  'voice_recorder',
];

const truthy = (b: unknown) => b === true || b === 'true';

function mergeFeatures(base: Record<string, boolean>, changes: Record<string, unknown> | undefined) {
  const out = { ...base };
  for (const [k, on] of Object.entries(changes ?? {})) out[k] = truthy(on);
  return out;
}

export async function createAccount(appId: number, input: NewAccount) {
  const t = now();
  const account: AccountRecord = {
    id: await nextId('account'),
    name: input.name,
    locale: input.locale ?? 'en',
    domain: input.domain ?? null,
    support_email: input.support_email ?? null,
    status: input.status ?? 'active',
    limits: input.limits ?? {},
    custom_attributes: input.custom_attributes ?? {},
    features: mergeFeatures(Object.fromEntries(DEFAULT_FEATURES.map((f) => [f, true])), input.features),
    created_at: t,
    updated_at: t,
    // A new account's conversations are all counted by the account counters (AP67) from the start.
    account_counters: true,
    // Its report facts spread over shards from the start (docs/cost.md#partition-heat).
    sharded_report_facts: true,
    // Its conversations with a team are in their team's partition of the account index from the start (AP62).
    team_list_partitions: true,
    // Its report aggregates keep block items per field group (docs/reports.md) from the start.
    report_blocks: true,
    // And the grouped items the per-row report routes read (docs/reports.md).
    report_groups: true,
  };
  await createPlatformAccount(account, appId);
  return accountJson(account);
}

/** An account the platform app created, or 404 (absent and foreign look the same). */
export async function permittedAccount(appId: number, id: number): Promise<AccountRecord> {
  const [allowed, account] = await Promise.all([isPermissible(appId, 'ACCOUNT', id), getAccount(id)]);
  if (!allowed || !account) throw notFound('Account');
  return account;
}

export async function listAccounts(appId: number) {
  const ids = await listPermissible(appId, 'ACCOUNT');
  return (await getAccounts(ids)).filter((a): a is AccountRecord => !!a).map(accountJson);
}

export async function showAccount(appId: number, id: number) {
  return accountJson(await permittedAccount(appId, id));
}

export async function updateAccount(appId: number, id: number, input: AccountUpdate) {
  return applyAccountChanges(await permittedAccount(appId, id), input);
}

/** `PATCH /api/v1/accounts/{id}` by one of its administrators. */
export const updateAccountSettings = (account: AccountRecord, input: AccountSettings) => applyAccountChanges(account, input);

async function applyAccountChanges(a: AccountRecord, input: AccountUpdate) {
  const updated: AccountRecord = {
    ...a,
    name: input.name ?? a.name,
    locale: input.locale ?? a.locale,
    domain: input.domain !== undefined ? input.domain : a.domain,
    support_email: input.support_email !== undefined ? input.support_email : a.support_email,
    status: input.status ?? a.status,
    limits: input.limits ?? a.limits,
    // Replaced wholesale, as Chatwoot does.
    custom_attributes: input.custom_attributes ?? a.custom_attributes,
    features: mergeFeatures(a.features, input.features),
    updated_at: now(),
  };
  await putAccount(updated);
  return accountJson(updated);
}

/**
 * Removes the account, its memberships and the app's permissible row. Without the account item every
 * request for it answers 404, so the rest of its data is unreachable from this moment.
 */
export async function deleteAccount(appId: number, id: number): Promise<void> {
  await permittedAccount(appId, id);
  const memberIds = (await listAccountUsers(id)).map((m) => m.user_id);
  await deletePlatformAccount(appId, id, memberIds, {
    kind: 'account',
    account_id: id,
    app_id: appId,
    user_ids: memberIds,
    created_at: now(),
  });
}
