import { publicHandler } from '#shared/http/handler.ts';
import { removeWidgetLabel, widgetRequest } from '#shared/domain/widget/chat.ts';

export const handler = publicHandler({ emptyStatus: 204, run: (ctx) => removeWidgetLabel(widgetRequest(ctx), ctx.params.id ?? '') });
