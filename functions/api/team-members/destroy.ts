import { apiHandler, intParam } from '#shared/http/handler.ts';
import { removeTeamMembers } from '#shared/domain/teams/service.ts';
import { TeamMembersSchema } from '#shared/domain/teams/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(TeamMembersSchema),
  run: (ctx) => removeTeamMembers(ctx.account, intParam(ctx, 'team_id', 'Team'), ctx.body.user_ids),
});
