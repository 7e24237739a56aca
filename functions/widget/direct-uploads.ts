import { publicHandler } from '../../shared/http/handler.ts';
import { widgetRequest } from '../../shared/domain/widget/chat.ts';
import { DirectUploadSchema } from '../../shared/domain/widget/schemas.ts';
import { createDirectUpload } from '../../shared/domain/widget/uploads.ts';

export const handler = publicHandler({
  body: DirectUploadSchema,
  run: (ctx) => createDirectUpload(widgetRequest(ctx), ctx.body),
});
