import { apiHandler } from '#shared/http/handler.ts';
import { listSlaPolicies } from '#shared/domain/sla/service.ts';

export const handler = apiHandler({ access: 'member', run: ({ account }) => listSlaPolicies(account.id) });
