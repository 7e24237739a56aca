import { apiHandler } from '#shared/http/handler.ts';
import { listCompanies } from '#shared/domain/companies/service.ts';
import { CompanyListQuery } from '#shared/http/query-docs.ts';

export const handler = apiHandler({
  query: CompanyListQuery,
  access: 'member',
  run: ({ account, query }) => listCompanies(account.id, query),
});
