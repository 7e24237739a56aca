import { apiHandler } from '#shared/http/handler.ts';
import { createAttributeDefinition } from '#shared/domain/custom-attributes/service.ts';
import { NewAttributeDefinitionSchema } from '#shared/domain/custom-attributes/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(NewAttributeDefinitionSchema),
  rootKey: 'custom_attribute_definition',
  run: ({ account, body }) => createAttributeDefinition(account.id, body),
});
