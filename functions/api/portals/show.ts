import { apiHandler } from '#shared/http/handler.ts';
import { showPortal } from '#shared/domain/help-center/service.ts';
import { LocaleQuery } from '#shared/http/query-docs.ts';

export const handler = apiHandler({
  access: 'member',
  query: LocaleQuery,
  run: ({ account, actor, params, query }) => showPortal(account.id, actor, params.id, query.locale),
});
