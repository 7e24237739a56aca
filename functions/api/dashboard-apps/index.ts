import { apiHandler } from '#shared/http/handler.ts';
import { listDashboardApps } from '#shared/domain/dashboard-apps/service.ts';

export const handler = apiHandler({ access: 'member', run: ({ account }) => listDashboardApps(account) });
