import { apiHandler } from '#shared/http/handler.ts';
import { updateAccountSettings } from '#shared/domain/accounts/service.ts';
import { AccountSettingsSchema } from '#shared/domain/accounts/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(AccountSettingsSchema),
  rootKey: 'account',
  run: ({ account, body }) => updateAccountSettings(account, body),
});
