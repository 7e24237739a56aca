import { apiHandler, intParam } from '#shared/http/handler.ts';
import { deleteHook } from '#shared/domain/integrations/service.ts';

export const handler = apiHandler({ access: 'administrator', run: (ctx) => deleteHook(ctx.account, intParam(ctx, 'id', 'Hook')) });
