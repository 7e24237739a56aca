import { publicHandler } from '#shared/http/handler.ts';
import { listWidgetInboxMembers, widgetRequest } from '#shared/domain/widget/chat.ts';

export const handler = publicHandler({ run: (ctx) => listWidgetInboxMembers(widgetRequest(ctx)) });
