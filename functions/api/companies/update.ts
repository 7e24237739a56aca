import { apiHandler, intParam } from '#shared/http/handler.ts';
import { updateCompany } from '#shared/domain/companies/service.ts';
import { CompanyUpdateSchema } from '#shared/domain/companies/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'member',
  body: bodyOf(CompanyUpdateSchema),
  rootKey: 'company',
  run: (ctx) => updateCompany(ctx.account.id, intParam(ctx, 'id', 'Company'), ctx.body),
});
