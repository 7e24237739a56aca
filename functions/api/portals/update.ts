import { apiHandler } from '#shared/http/handler.ts';
import { updatePortal } from '#shared/domain/help-center/service.ts';
import { PortalUpdateSchema } from '#shared/domain/help-center/portal-schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(PortalUpdateSchema),
  rootKey: 'portal',
  run: ({ account, actor, params, body }) => updatePortal(account.id, actor, params.id, body),
});
