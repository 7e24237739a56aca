import { apiHandler } from '#shared/http/handler.ts';
import { showSettings } from '#shared/domain/notifications/service.ts';

export const handler = apiHandler({ access: 'member', run: ({ account, actor }) => showSettings(account, actor) });
