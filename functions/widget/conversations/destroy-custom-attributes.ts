import { publicHandler } from '#shared/http/handler.ts';
import { destroyWidgetConversationAttributes, widgetRequest } from '#shared/domain/widget/chat.ts';
import { DestroyConversationAttributesSchema } from '#shared/domain/widget/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = publicHandler({
  body: bodyOf(DestroyConversationAttributesSchema),
  run: (ctx) => destroyWidgetConversationAttributes(widgetRequest(ctx), ctx.body.custom_attribute),
});
