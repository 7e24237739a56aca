import { apiHandler } from '#shared/http/handler.ts';
import { followUp } from '#shared/domain/captain/service.ts';
import { FollowUpSchema } from '#shared/domain/captain/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'member',
  body: bodyOf(FollowUpSchema),
  run: (ctx) => followUp(ctx.account, ctx.actor, ctx.body),
});
