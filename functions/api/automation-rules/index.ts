import { apiHandler } from '#shared/http/handler.ts';
import { listAutomationRules } from '#shared/domain/automation/service.ts';

export const handler = apiHandler({ access: 'administrator', run: ({ account }) => listAutomationRules(account.id) });
