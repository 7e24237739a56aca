import { apiHandler, intParam } from '#shared/http/handler.ts';
import { updateDashboardApp } from '#shared/domain/dashboard-apps/service.ts';
import { DashboardAppUpdateSchema } from '#shared/domain/dashboard-apps/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(DashboardAppUpdateSchema),
  rootKey: 'dashboard_app',
  run: (ctx) => updateDashboardApp(ctx.account, intParam(ctx, 'id', 'Dashboard app'), ctx.body),
});
