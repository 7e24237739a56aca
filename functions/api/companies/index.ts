import { apiHandler } from '#shared/http/handler.ts';
import { listCompanies } from '#shared/domain/companies/service.ts';

export const handler = apiHandler({
  access: 'member',
  run: ({ account, query }) => listCompanies(account.id, query),
});
