import { apiHandler } from '#shared/http/handler.ts';
import { listTeamsFor } from '#shared/domain/teams/service.ts';

export const handler = apiHandler({
  access: 'member',
  run: ({ account, actor }) => listTeamsFor(account, actor),
});
