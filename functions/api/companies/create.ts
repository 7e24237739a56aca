import { apiHandler } from '#shared/http/handler.ts';
import { createCompany } from '#shared/domain/companies/service.ts';
import { NewCompanySchema } from '#shared/domain/companies/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'member',
  body: bodyOf(NewCompanySchema),
  rootKey: 'company',
  run: ({ account, body }) => createCompany(account.id, body),
});
