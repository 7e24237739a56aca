import { publicHandler } from '#shared/http/handler.ts';
import { addWidgetLabel, widgetRequest } from '#shared/domain/widget/chat.ts';
import { WidgetLabelSchema } from '#shared/domain/widget/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = publicHandler({
  emptyStatus: 204,
  body: bodyOf(WidgetLabelSchema),
  run: (ctx) => addWidgetLabel(widgetRequest(ctx), ctx.body.label),
});
