import { publicHandler } from '#shared/http/handler.ts';
import { toggleWidgetTyping, widgetRequest } from '#shared/domain/widget/chat.ts';
import { WidgetTypingSchema } from '#shared/domain/widget/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = publicHandler({
  body: bodyOf(WidgetTypingSchema),
  run: (ctx) => toggleWidgetTyping(widgetRequest(ctx), ctx.body.typing_status),
});
