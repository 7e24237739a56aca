import { apiHandler } from '#shared/http/handler.ts';
import { createLabel } from '#shared/domain/labels/service.ts';
import { NewLabelSchema } from '#shared/domain/labels/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(NewLabelSchema),
  rootKey: 'label',
  run: ({ account, body }) => createLabel(account.id, body),
});
