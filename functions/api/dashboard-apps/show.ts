import { apiHandler, intParam } from '#shared/http/handler.ts';
import { showDashboardApp } from '#shared/domain/dashboard-apps/service.ts';

export const handler = apiHandler({ access: 'member', run: (ctx) => showDashboardApp(ctx.account, intParam(ctx, 'id', 'Dashboard app')) });
