import { apiHandler, intParam } from '#shared/http/handler.ts';
import { deleteMacro } from '#shared/domain/macros/service.ts';

export const handler = apiHandler({ access: 'member', run: (ctx) => deleteMacro(ctx.account, ctx.actor, intParam(ctx, 'id', 'Macro')) });
