import { apiHandler, intParam } from '#shared/http/handler.ts';
import { deleteDashboardApp } from '#shared/domain/dashboard-apps/service.ts';

export const handler = apiHandler({
  emptyStatus: 204,
  access: 'administrator',
  run: (ctx) => deleteDashboardApp(ctx.account, intParam(ctx, 'id', 'Dashboard app')),
});
