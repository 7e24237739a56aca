import { apiHandler } from '#shared/http/handler.ts';
import { listWebhooks } from '#shared/domain/webhooks/service.ts';

export const handler = apiHandler({ access: 'administrator', run: ({ account }) => listWebhooks(account.id) });
