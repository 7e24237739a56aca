import { intParam, publicHandler } from '#shared/http/handler.ts';
import { updateWidgetMessage, widgetRequest } from '#shared/domain/widget/chat.ts';
import { WidgetMessageUpdateSchema } from '#shared/domain/widget/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = publicHandler({
  body: bodyOf(WidgetMessageUpdateSchema),
  run: (ctx) => updateWidgetMessage(widgetRequest(ctx), intParam(ctx, 'id', 'Message'), ctx.body),
});
