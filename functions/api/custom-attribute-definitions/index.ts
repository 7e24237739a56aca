import { apiHandler } from '#shared/http/handler.ts';
import { parseOrThrow } from '#shared/validate.ts';
import { listAttributeDefinitions } from '#shared/domain/custom-attributes/service.ts';
import { CustomAttributeDefinitionQuery } from '#shared/domain/custom-attributes/schemas.ts';

export const handler = apiHandler({
  access: 'member',
  run: ({ account, query }) =>
    listAttributeDefinitions(
      account.id,
      parseOrThrow(CustomAttributeDefinitionQuery, { attribute_model: query.attribute_model || undefined }).attribute_model,
    ),
});
