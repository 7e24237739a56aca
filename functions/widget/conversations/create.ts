import { publicHandler } from '#shared/http/handler.ts';
import { createWidgetConversation, widgetRequest } from '#shared/domain/widget/chat.ts';
import { WidgetNewConversationSchema } from '#shared/domain/widget/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = publicHandler({
  body: bodyOf(WidgetNewConversationSchema),
  run: (ctx) => createWidgetConversation(widgetRequest(ctx), ctx.body),
});
