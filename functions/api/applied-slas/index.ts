import { apiHandler } from '#shared/http/handler.ts';
import { listMissedSlas } from '#shared/domain/sla/applied.ts';

export const handler = apiHandler({
  access: 'administrator',
  run: ({ account, query }) => listMissedSlas(account, query),
});
