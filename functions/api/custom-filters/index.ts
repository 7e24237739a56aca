import { apiHandler } from '#shared/http/handler.ts';
import { parseOrThrow } from '#shared/validate.ts';
import { listCustomFilters } from '#shared/domain/custom-filters/service.ts';
import { CustomFilterListQuery } from '#shared/domain/custom-filters/schemas.ts';

export const handler = apiHandler({
  access: 'member',
  run: ({ account, actor, query }) => listCustomFilters(account.id, actor, parseOrThrow(CustomFilterListQuery, query).filter_type),
});
