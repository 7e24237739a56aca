import { publicHandler } from '#shared/http/handler.ts';
import { destroyWidgetContactAttributes, widgetRequest } from '#shared/domain/widget/chat.ts';
import { DestroyContactAttributesSchema } from '#shared/domain/widget/schemas.ts';

export const handler = publicHandler({
  body: DestroyContactAttributesSchema,
  run: (ctx) => destroyWidgetContactAttributes(widgetRequest(ctx), ctx.body.custom_attributes),
});
