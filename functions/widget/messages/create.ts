import { publicHandler } from '#shared/http/handler.ts';
import { parseMultipart } from '#shared/http/multipart.ts';
import { createWidgetMessage, widgetRequest } from '#shared/domain/widget/chat.ts';
import { WidgetNewMessageSchema } from '#shared/domain/widget/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = publicHandler({
  body: bodyOf(WidgetNewMessageSchema),
  rootKey: 'message',
  // `message[attachments][]` arrive as uploaded files.
  multipart: parseMultipart,
  run: (ctx) => createWidgetMessage(widgetRequest(ctx), ctx.body),
});
