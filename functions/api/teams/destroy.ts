import { apiHandler, intParam } from '#shared/http/handler.ts';
import { deleteTeam } from '#shared/domain/teams/service.ts';

export const handler = apiHandler({
  access: 'administrator',
  run: (ctx) => deleteTeam(ctx.account, intParam(ctx, 'id', 'Team')),
});
