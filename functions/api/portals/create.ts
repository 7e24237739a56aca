import { apiHandler } from '#shared/http/handler.ts';
import { createPortal } from '#shared/domain/help-center/service.ts';
import { NewPortalSchema } from '#shared/domain/help-center/portal-schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(NewPortalSchema),
  rootKey: 'portal',
  run: ({ account, actor, body }) => createPortal(account.id, actor, body),
});
