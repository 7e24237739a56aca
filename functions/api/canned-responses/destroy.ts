import { apiHandler, intParam } from '#shared/http/handler.ts';
import { deleteCannedResponse } from '#shared/domain/canned-responses/service.ts';

export const handler = apiHandler({
  access: 'administrator',
  run: (ctx) => deleteCannedResponse(ctx.account.id, intParam(ctx, 'id', 'Canned response')),
});
