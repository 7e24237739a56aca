import { apiHandler } from '#shared/http/handler.ts';
import { createWebhook } from '#shared/domain/webhooks/service.ts';
import { NewWebhookSchema } from '#shared/domain/webhooks/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(NewWebhookSchema),
  rootKey: 'webhook',
  run: ({ account, body }) => createWebhook(account.id, body),
});
