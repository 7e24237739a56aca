import { apiHandler } from '#shared/http/handler.ts';
import { listMissedSlas } from '#shared/domain/sla/applied.ts';
import { AppliedSlaQuery } from '#shared/domain/sla/schemas.ts';

export const handler = apiHandler({
  access: 'administrator',
  query: AppliedSlaQuery,
  run: ({ account, query }) => listMissedSlas(account, query),
});
