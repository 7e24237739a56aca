import { publicHandler } from '#shared/http/handler.ts';
import { addWidgetLabel, widgetRequest } from '#shared/domain/widget/chat.ts';
import { WidgetLabelSchema } from '#shared/domain/widget/schemas.ts';

export const handler = publicHandler({
  emptyStatus: 204,
  body: WidgetLabelSchema,
  run: (ctx) => addWidgetLabel(widgetRequest(ctx), ctx.body.label),
});
