import { apiHandler, intParam } from '#shared/http/handler.ts';
import { deleteAutomationRule } from '#shared/domain/automation/service.ts';

export const handler = apiHandler({
  access: 'administrator',
  run: (ctx) => deleteAutomationRule(ctx.account.id, intParam(ctx, 'id', 'Automation rule')),
});
