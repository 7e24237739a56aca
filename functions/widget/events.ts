import { publicHandler } from '#shared/http/handler.ts';
import { triggerWidgetEvent, websiteTokenOf } from '#shared/domain/widget/service.ts';

export const handler = publicHandler({
  run: ({ event, query, body }) =>
    triggerWidgetEvent(websiteTokenOf(query, body), event.headers['x-auth-token'], body, {
      locale: query.locale,
      acceptLanguage: event.headers['accept-language'],
      userAgent: event.headers['user-agent'],
    }),
});
