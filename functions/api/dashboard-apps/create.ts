import { apiHandler } from '#shared/http/handler.ts';
import { createDashboardApp } from '#shared/domain/dashboard-apps/service.ts';
import { NewDashboardAppSchema } from '#shared/domain/dashboard-apps/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(NewDashboardAppSchema),
  rootKey: 'dashboard_app',
  run: ({ account, actor, body }) => createDashboardApp(account, actor, body),
});
