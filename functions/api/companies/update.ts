import { apiHandler, intParam } from '#shared/http/handler.ts';
import { updateCompany } from '#shared/domain/companies/service.ts';
import { CompanyUpdateSchema } from '#shared/domain/companies/schemas.ts';

export const handler = apiHandler({
  access: 'member',
  body: CompanyUpdateSchema,
  rootKey: 'company',
  run: (ctx) => updateCompany(ctx.account.id, intParam(ctx, 'id', 'Company'), ctx.body),
});
