import { publicHandler } from '#shared/http/handler.ts';
import { requestWidgetTranscript, widgetRequest } from '#shared/domain/widget/chat.ts';

export const handler = publicHandler({ run: (ctx) => requestWidgetTranscript(widgetRequest(ctx)) });
