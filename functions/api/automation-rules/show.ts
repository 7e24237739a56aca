import { apiHandler, intParam } from '#shared/http/handler.ts';
import { showAutomationRule } from '#shared/domain/automation/service.ts';

export const handler = apiHandler({
  access: 'administrator',
  run: (ctx) => showAutomationRule(ctx.account.id, intParam(ctx, 'id', 'Automation rule')),
});
