import { publicHandler } from '#shared/http/handler.ts';
import { showWidgetConversation, widgetRequest } from '#shared/domain/widget/chat.ts';

export const handler = publicHandler({ run: (ctx) => showWidgetConversation(widgetRequest(ctx)) });
