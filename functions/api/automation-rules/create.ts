import { apiHandler } from '#shared/http/handler.ts';
import { createAutomationRule } from '#shared/domain/automation/service.ts';
import { NewAutomationRuleSchema } from '#shared/domain/automation/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(NewAutomationRuleSchema),
  rootKey: 'automation_rule',
  run: ({ account, body }) => createAutomationRule(account.id, body),
});
