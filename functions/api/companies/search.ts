import { apiHandler } from '#shared/http/handler.ts';
import { searchCompanies } from '#shared/domain/companies/service.ts';

export const handler = apiHandler({
  access: 'member',
  run: ({ account, query }) => searchCompanies(account.id, query),
});
