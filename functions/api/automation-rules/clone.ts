import { apiHandler, intParam } from '#shared/http/handler.ts';
import { cloneAutomationRule } from '#shared/domain/automation/service.ts';

export const handler = apiHandler({
  access: 'administrator',
  run: (ctx) => cloneAutomationRule(ctx.account.id, intParam(ctx, 'id', 'Automation rule')),
});
