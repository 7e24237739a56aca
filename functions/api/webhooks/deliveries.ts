import { apiHandler, intParam } from '#shared/http/handler.ts';
import { listWebhookDeliveries } from '#shared/domain/webhooks/deliveries.ts';

export const handler = apiHandler({
  access: 'administrator',
  run: (ctx) => listWebhookDeliveries(ctx.account.id, intParam(ctx, 'id', 'Webhook')),
});
