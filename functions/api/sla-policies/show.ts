import { apiHandler, intParam } from '#shared/http/handler.ts';
import { showSlaPolicy } from '#shared/domain/sla/service.ts';

export const handler = apiHandler({ access: 'member', run: (ctx) => showSlaPolicy(ctx.account.id, intParam(ctx, 'id', 'SlaPolicy')) });
