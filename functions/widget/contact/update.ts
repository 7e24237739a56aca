import { publicHandler } from '#shared/http/handler.ts';
import { updateWidgetContact, widgetRequest } from '#shared/domain/widget/chat.ts';
import { WidgetContactSchema } from '#shared/domain/widget/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = publicHandler({
  body: bodyOf(WidgetContactSchema),
  run: (ctx) => updateWidgetContact(widgetRequest(ctx), ctx.body),
});
