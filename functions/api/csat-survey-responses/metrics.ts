import { apiHandler } from '#shared/http/handler.ts';
import { surveyMetrics } from '#shared/domain/csat/service.ts';

export const handler = apiHandler({
  access: 'administrator',
  run: ({ account, query }) => surveyMetrics(account, query),
});
