import * as v from 'valibot';
import { apiHandler } from '#shared/http/handler.ts';
import { parseOrThrow } from '#shared/validate.ts';
import { listAttributeDefinitions } from '#shared/domain/custom-attributes/service.ts';
import { AttributeModelSchema } from '#shared/domain/custom-attributes/schemas.ts';

const QuerySchema = v.object({ attribute_model: v.optional(AttributeModelSchema) });

export const handler = apiHandler({
  query: QuerySchema,
  access: 'member',
  run: ({ account, query }) =>
    listAttributeDefinitions(
      account.id,
      parseOrThrow(QuerySchema, { attribute_model: query.attribute_model || undefined }).attribute_model,
    ),
});
