import { publicHandler } from '#shared/http/handler.ts';
import { listWidgetMessages, widgetRequest } from '#shared/domain/widget/chat.ts';
import { WidgetMessagesQuery } from '#shared/http/query-docs.ts';

export const handler = publicHandler({ query: WidgetMessagesQuery, run: (ctx) => listWidgetMessages(widgetRequest(ctx), ctx.query) });
