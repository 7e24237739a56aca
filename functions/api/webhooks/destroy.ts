import { apiHandler, intParam } from '#shared/http/handler.ts';
import { deleteWebhook } from '#shared/domain/webhooks/service.ts';

export const handler = apiHandler({ access: 'administrator', run: (ctx) => deleteWebhook(ctx.account.id, intParam(ctx, 'id', 'Webhook')) });
