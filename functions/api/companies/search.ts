import { apiHandler } from '#shared/http/handler.ts';
import { searchCompanies } from '#shared/domain/companies/service.ts';
import { CompanySearchQuery } from '#shared/http/query-docs.ts';

export const handler = apiHandler({
  query: CompanySearchQuery,
  access: 'member',
  run: ({ account, query }) => searchCompanies(account.id, query),
});
