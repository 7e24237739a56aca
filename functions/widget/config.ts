import { publicHandler } from '#shared/http/handler.ts';
import { websiteTokenOf, widgetConfig } from '#shared/domain/widget/service.ts';

export const handler = publicHandler({
  run: ({ event, query, body }) => widgetConfig(websiteTokenOf(query, body), event.headers['x-auth-token']),
});
