import * as keys from '../keys.ts';
import { transact } from '../transact.ts';
import type { DashboardAppRecord } from '#shared/model/dashboard-apps.ts';
import { getItem, queryPrefix, record } from './common.ts';
import { versionedDel, versionedPut } from './versioned.ts';

/** AP132: a dashboard app of an account. */
export const getDashboardApp = (accountId: number, id: number, consistent = false) =>
  getItem<DashboardAppRecord>(keys.dashboardApp(accountId, id), consistent);

/** AP133: the dashboard apps of an account, by id. */
export async function listDashboardApps(accountId: number): Promise<DashboardAppRecord[]> {
  const p = keys.dashboardAppsOf(accountId);
  return (await queryPrefix({ pk: p.pk }, p.skPrefix)).map((i) => record<DashboardAppRecord>(i)!);
}

const item = (d: DashboardAppRecord) => ({ ...keys.dashboardApp(d.account_id, d.id), type: 'dashboard_app', ...d });

export async function saveDashboardApp(before: DashboardAppRecord | undefined, after: DashboardAppRecord): Promise<void> {
  await transact([versionedPut(item(after), before?.version)]);
}

export async function deleteDashboardApp(d: DashboardAppRecord): Promise<void> {
  await transact([versionedDel(keys.dashboardApp(d.account_id, d.id), d.version)]);
}
