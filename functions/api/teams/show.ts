import { apiHandler, intParam } from '#shared/http/handler.ts';
import { showTeam } from '#shared/domain/teams/service.ts';

export const handler = apiHandler({
  access: 'member',
  run: (ctx) => showTeam(ctx.account, ctx.actor, intParam(ctx, 'id', 'Team')),
});
