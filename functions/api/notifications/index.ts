import { apiHandler } from '#shared/http/handler.ts';
import { listNotifications } from '#shared/domain/notifications/service.ts';
import { NotificationListQuery } from '#shared/http/query-docs.ts';

export const handler = apiHandler({
  query: NotificationListQuery,
  access: 'member',
  run: ({ account, actor, query }) => listNotifications(account, actor, query),
});
