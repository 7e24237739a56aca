import { apiHandler, intParam } from '#shared/http/handler.ts';
import { listTeamMembers } from '#shared/domain/teams/service.ts';

export const handler = apiHandler({
  access: 'member',
  run: (ctx) => listTeamMembers(ctx.account, intParam(ctx, 'team_id', 'Team')),
});
