import { apiHandler, intParam } from '#shared/http/handler.ts';
import { deleteCompany } from '#shared/domain/companies/service.ts';

export const handler = apiHandler({
  access: 'administrator',
  run: (ctx) => deleteCompany(ctx.account.id, intParam(ctx, 'id', 'Company')),
});
