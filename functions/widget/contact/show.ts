import { publicHandler } from '#shared/http/handler.ts';
import { showWidgetContact, widgetRequest } from '#shared/domain/widget/chat.ts';

export const handler = publicHandler({ run: (ctx) => showWidgetContact(widgetRequest(ctx)) });
