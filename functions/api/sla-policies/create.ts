import { apiHandler } from '#shared/http/handler.ts';
import { createSlaPolicy } from '#shared/domain/sla/service.ts';
import { NewSlaPolicySchema } from '#shared/domain/sla/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(NewSlaPolicySchema),
  rootKey: 'sla_policy',
  run: ({ account, body }) => createSlaPolicy(account.id, body),
});
