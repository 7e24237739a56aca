import { publicHandler } from '#shared/http/handler.ts';
import { websiteTokenOf, widgetConfig } from '#shared/domain/widget/service.ts';
import { WebsiteTokenQuery } from '#shared/http/query-docs.ts';

export const handler = publicHandler({
  query: WebsiteTokenQuery,
  run: ({ event, query, body }) => widgetConfig(websiteTokenOf(query, body), event.headers['x-auth-token']),
});
