import { apiHandler, intParam } from '#shared/http/handler.ts';
import { deleteLabel } from '#shared/domain/labels/service.ts';

export const handler = apiHandler({ access: 'administrator', run: (ctx) => deleteLabel(ctx.account.id, intParam(ctx, 'id', 'Label')) });
