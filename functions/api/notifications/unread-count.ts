import { apiHandler } from '#shared/http/handler.ts';
import { unreadCount } from '#shared/domain/notifications/service.ts';

export const handler = apiHandler({ access: 'member', run: ({ account, actor }) => unreadCount(account, actor) });
