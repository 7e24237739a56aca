import { apiHandler } from '#shared/http/handler.ts';
import { createPortal } from '#shared/domain/help-center/service.ts';
import { NewPortalSchema } from '#shared/domain/help-center/portal-schemas.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: NewPortalSchema,
  rootKey: 'portal',
  run: ({ account, actor, body }) => createPortal(account.id, actor, body),
});
