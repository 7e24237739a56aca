import { publicHandler } from '#shared/http/handler.ts';
import { setWidgetConversationAttributes, widgetRequest } from '#shared/domain/widget/chat.ts';
import { WidgetCustomAttributesSchema } from '#shared/domain/widget/schemas.ts';

export const handler = publicHandler({
  body: WidgetCustomAttributesSchema,
  run: (ctx) => setWidgetConversationAttributes(widgetRequest(ctx), ctx.body.custom_attributes),
});
