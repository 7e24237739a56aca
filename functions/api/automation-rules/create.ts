import { apiHandler } from '#shared/http/handler.ts';
import { createAutomationRule } from '#shared/domain/automation/service.ts';
import { NewAutomationRuleSchema } from '#shared/domain/automation/schemas.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: NewAutomationRuleSchema,
  rootKey: 'automation_rule',
  run: ({ account, body }) => createAutomationRule(account.id, body),
});
