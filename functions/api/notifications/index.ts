import { apiHandler } from '#shared/http/handler.ts';
import { listNotifications } from '#shared/domain/notifications/service.ts';

export const handler = apiHandler({
  access: 'member',
  run: ({ account, actor, query }) => listNotifications(account, actor, query),
});
