import { apiHandler, intParam } from '#shared/http/handler.ts';
import { updateCannedResponse } from '#shared/domain/canned-responses/service.ts';
import { CannedResponseUpdateSchema } from '#shared/domain/canned-responses/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(CannedResponseUpdateSchema),
  rootKey: 'canned_response',
  run: (ctx) => updateCannedResponse(ctx.account.id, intParam(ctx, 'id', 'Canned response'), ctx.body),
});
