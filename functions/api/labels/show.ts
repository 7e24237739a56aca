import { apiHandler, intParam } from '#shared/http/handler.ts';
import { showLabel } from '#shared/domain/labels/service.ts';

export const handler = apiHandler({ access: 'member', run: (ctx) => showLabel(ctx.account.id, intParam(ctx, 'id', 'Label')) });
