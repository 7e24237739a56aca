import { publicHandler } from '#shared/http/handler.ts';
import { setWidgetUser, widgetRequest } from '#shared/domain/widget/chat.ts';
import { WidgetContactSchema } from '#shared/domain/widget/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = publicHandler({
  body: bodyOf(WidgetContactSchema),
  run: (ctx) => setWidgetUser(widgetRequest(ctx), ctx.body),
});
