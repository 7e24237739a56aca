import { apiHandler } from '#shared/http/handler.ts';
import { listPortals } from '#shared/domain/help-center/service.ts';

export const handler = apiHandler({
  access: 'member',
  run: ({ account, actor, query }) => listPortals(account.id, actor, query),
});
