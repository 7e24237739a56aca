import { apiHandler } from '#shared/http/handler.ts';
import { createCannedResponse } from '#shared/domain/canned-responses/service.ts';
import { NewCannedResponseSchema } from '#shared/domain/canned-responses/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(NewCannedResponseSchema),
  rootKey: 'canned_response',
  run: ({ account, body }) => createCannedResponse(account.id, body),
});
