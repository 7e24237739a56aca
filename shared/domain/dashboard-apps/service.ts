import { nextId } from '#shared/db/ids.ts';
import * as repo from '#shared/db/repositories/dashboard-apps.ts';
import { retryStale } from '#shared/db/repositories/versioned.ts';
import type { Actor } from '#shared/model/actor.ts';
import { notFound } from '#shared/errors.ts';
import type { AccountRecord } from '#shared/model/identity.ts';
import { now } from '#shared/model/time.ts';
import type { DashboardAppRecord } from '#shared/model/dashboard-apps.ts';
import type { DashboardAppUpdate, NewDashboardApp } from './schemas.ts';

// Dashboard apps (Chatwoot's DashboardAppsController): frames an account shows beside conversations.
// Everyone in the account reads them; administrators change them.

const json = (d: DashboardAppRecord) => ({
  id: d.id,
  title: d.title,
  content: d.content,
  created_at: new Date(d.created_at * 1000).toISOString(),
});

async function find(accountId: number, id: number, consistent = false) {
  const d = await repo.getDashboardApp(accountId, id, consistent);
  if (!d) throw notFound('Dashboard app');
  return d;
}

export async function listDashboardApps(account: AccountRecord) {
  return (await repo.listDashboardApps(account.id)).map(json);
}

export async function showDashboardApp(account: AccountRecord, id: number) {
  return json(await find(account.id, id));
}

export async function createDashboardApp(account: AccountRecord, actor: Actor, input: NewDashboardApp) {
  const t = now();
  const d: DashboardAppRecord = {
    id: await nextId('dashboard_app'),
    account_id: account.id,
    user_id: actor.type === 'user' ? actor.user.id : 0,
    title: input.title,
    content: input.content,
    created_at: t,
    updated_at: t,
    version: 1,
  };
  await repo.saveDashboardApp(undefined, d);
  return json(d);
}

export async function updateDashboardApp(account: AccountRecord, id: number, input: DashboardAppUpdate) {
  return retryStale(async (consistent) => {
    const before = await find(account.id, id, consistent);
    const after = {
      ...before,
      title: input.title ?? before.title,
      content: input.content ?? before.content,
      updated_at: now(),
      version: before.version + 1,
    };
    await repo.saveDashboardApp(before, after);
    return json(after);
  });
}

/** Chatwoot answers 204. */
export async function deleteDashboardApp(account: AccountRecord, id: number) {
  // A concurrent change or delete of the app is a lost race: read again (a delete that lost is then 404).
  await retryStale(async () => repo.deleteDashboardApp(await find(account.id, id, true)));
}
