import { publicHandler } from '#shared/http/handler.ts';
import { widgetRequest } from '#shared/domain/widget/chat.ts';
import { DirectUploadSchema } from '#shared/domain/messages/change-schemas.ts';
import { createWidgetDirectUpload } from '#shared/domain/widget/uploads.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = publicHandler({
  body: bodyOf(DirectUploadSchema),
  run: (ctx) => createWidgetDirectUpload(widgetRequest(ctx), ctx.body),
});
