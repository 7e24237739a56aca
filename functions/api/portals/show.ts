import { apiHandler } from '#shared/http/handler.ts';
import { showPortal } from '#shared/domain/help-center/service.ts';

export const handler = apiHandler({
  access: 'member',
  run: ({ account, actor, params, query }) => showPortal(account.id, actor, params.id, query.locale),
});
