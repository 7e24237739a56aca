import { apiHandler, intParam } from '#shared/http/handler.ts';
import { syncInboxTemplates } from '#shared/domain/inboxes/service.ts';
import { syncChannelTemplates } from '#shared/channels/setup.ts';

// `POST /inboxes/{id}/sync_templates`: the provider's message templates, fetched now (docs/channels.md#whatsapp).
export const handler = apiHandler({
  access: 'administrator',
  run: (ctx) => syncInboxTemplates(ctx.account, intParam(ctx, 'id', 'Inbox'), syncChannelTemplates),
});
