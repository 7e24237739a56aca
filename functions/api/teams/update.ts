import { apiHandler, intParam } from '#shared/http/handler.ts';
import { updateTeam } from '#shared/domain/teams/service.ts';
import { TeamUpdateSchema } from '#shared/domain/teams/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(TeamUpdateSchema),
  rootKey: 'team',
  run: (ctx) => updateTeam(ctx.account, ctx.actor, intParam(ctx, 'id', 'Team'), ctx.body),
});
