import { apiHandler } from '#shared/http/handler.ts';
import { createWebhook } from '#shared/domain/webhooks/service.ts';
import { NewWebhookSchema } from '#shared/domain/webhooks/schemas.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: NewWebhookSchema,
  rootKey: 'webhook',
  run: ({ account, body }) => createWebhook(account.id, body),
});
