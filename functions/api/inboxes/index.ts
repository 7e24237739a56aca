import { apiHandler } from '#shared/http/handler.ts';
import { listInboxesFor } from '#shared/domain/inboxes/service.ts';

export const handler = apiHandler({
  access: 'member',
  run: ({ account, actor }) => listInboxesFor(account, actor),
});
