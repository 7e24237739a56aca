import { publicHandler } from '#shared/http/handler.ts';
import { destroyWidgetContactAttributes, widgetRequest } from '#shared/domain/widget/chat.ts';
import { DestroyContactAttributesSchema } from '#shared/domain/widget/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = publicHandler({
  body: bodyOf(DestroyContactAttributesSchema),
  run: (ctx) => destroyWidgetContactAttributes(widgetRequest(ctx), ctx.body.custom_attributes),
});
