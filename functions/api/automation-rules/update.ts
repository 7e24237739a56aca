import { apiHandler, intParam } from '#shared/http/handler.ts';
import { updateAutomationRule } from '#shared/domain/automation/service.ts';
import { AutomationRuleUpdateSchema } from '#shared/domain/automation/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(AutomationRuleUpdateSchema),
  rootKey: 'automation_rule',
  run: (ctx) => updateAutomationRule(ctx.account.id, intParam(ctx, 'id', 'Automation rule'), ctx.body),
});
