import { publicHandler } from '#shared/http/handler.ts';
import { setWidgetConversationAttributes, widgetRequest } from '#shared/domain/widget/chat.ts';
import { WidgetCustomAttributesSchema } from '#shared/domain/widget/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = publicHandler({
  body: bodyOf(WidgetCustomAttributesSchema),
  run: (ctx) => setWidgetConversationAttributes(widgetRequest(ctx), ctx.body.custom_attributes),
});
