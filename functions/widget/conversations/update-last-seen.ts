import { publicHandler } from '#shared/http/handler.ts';
import { updateWidgetLastSeen, widgetRequest } from '#shared/domain/widget/chat.ts';

export const handler = publicHandler({ run: (ctx) => updateWidgetLastSeen(widgetRequest(ctx)) });
