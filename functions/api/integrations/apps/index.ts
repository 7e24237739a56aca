import { apiHandler } from '#shared/http/handler.ts';
import { listApps } from '#shared/domain/integrations/service.ts';

export const handler = apiHandler({ access: 'member', run: ({ account, actor }) => listApps(account, actor) });
