import { apiHandler } from '#shared/http/handler.ts';
import { createTeam } from '#shared/domain/teams/service.ts';
import { NewTeamSchema } from '#shared/domain/teams/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(NewTeamSchema),
  rootKey: 'team',
  run: ({ account, body }) => createTeam(account, body),
});
