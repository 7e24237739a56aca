import { publicHandler } from '#shared/http/handler.ts';
import { listWidgetMessages, widgetRequest } from '#shared/domain/widget/chat.ts';

export const handler = publicHandler({ run: (ctx) => listWidgetMessages(widgetRequest(ctx), ctx.query) });
