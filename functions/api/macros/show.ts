import { apiHandler, intParam } from '#shared/http/handler.ts';
import { showMacro } from '#shared/domain/macros/service.ts';

export const handler = apiHandler({ access: 'member', run: (ctx) => showMacro(ctx.account.id, ctx.actor, intParam(ctx, 'id', 'Macro')) });
