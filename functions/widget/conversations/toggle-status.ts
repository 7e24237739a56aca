import { publicHandler } from '#shared/http/handler.ts';
import { resolveWidgetConversation, widgetRequest } from '#shared/domain/widget/chat.ts';

export const handler = publicHandler({ run: (ctx) => resolveWidgetConversation(widgetRequest(ctx)) });
