import { apiHandler, intParam } from '#shared/http/handler.ts';
import { updateWebhook } from '#shared/domain/webhooks/service.ts';
import { WebhookUpdateSchema } from '#shared/domain/webhooks/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(WebhookUpdateSchema),
  rootKey: 'webhook',
  run: (ctx) => updateWebhook(ctx.account.id, intParam(ctx, 'id', 'Webhook'), ctx.body),
});
