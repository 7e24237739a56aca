import { apiHandler, intParam } from '#shared/http/handler.ts';
import { replaceParticipants } from '#shared/domain/participants/service.ts';
import { ParticipantsSchema } from '#shared/domain/participants/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'member',
  body: bodyOf(ParticipantsSchema),
  run: (ctx) => replaceParticipants(ctx.account, ctx.actor, intParam(ctx, 'conversation_id', 'Conversation'), ctx.body.user_ids),
});
