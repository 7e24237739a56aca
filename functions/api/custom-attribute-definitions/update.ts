import { apiHandler, intParam } from '#shared/http/handler.ts';
import { updateAttributeDefinition } from '#shared/domain/custom-attributes/service.ts';
import { AttributeDefinitionUpdateSchema } from '#shared/domain/custom-attributes/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(AttributeDefinitionUpdateSchema),
  rootKey: 'custom_attribute_definition',
  run: (ctx) => updateAttributeDefinition(ctx.account.id, intParam(ctx, 'id', 'Custom attribute definition'), ctx.body),
});
