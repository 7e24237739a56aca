import { apiHandler, intParam } from '#shared/http/handler.ts';
import { updateDashboardApp } from '#shared/domain/dashboard-apps/service.ts';
import { DashboardAppUpdateSchema } from '#shared/domain/dashboard-apps/schemas.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: DashboardAppUpdateSchema,
  rootKey: 'dashboard_app',
  run: (ctx) => updateDashboardApp(ctx.account, intParam(ctx, 'id', 'Dashboard app'), ctx.body),
});
