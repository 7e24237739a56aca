import { apiHandler } from '#shared/http/handler.ts';
import { appliedSlaMetrics } from '#shared/domain/sla/applied.ts';

export const handler = apiHandler({
  access: 'administrator',
  run: ({ account, query }) => appliedSlaMetrics(account, query),
});
