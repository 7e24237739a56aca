import { publicHandler } from '#shared/http/handler.ts';
import { updateWidgetContact, widgetRequest } from '#shared/domain/widget/chat.ts';
import { WidgetContactSchema } from '#shared/domain/widget/schemas.ts';

export const handler = publicHandler({
  body: WidgetContactSchema,
  run: (ctx) => updateWidgetContact(widgetRequest(ctx), ctx.body),
});
