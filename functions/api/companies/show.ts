import { apiHandler, intParam } from '#shared/http/handler.ts';
import { showCompany } from '#shared/domain/companies/service.ts';

export const handler = apiHandler({
  access: 'member',
  run: (ctx) => showCompany(ctx.account.id, intParam(ctx, 'id', 'Company')),
});
