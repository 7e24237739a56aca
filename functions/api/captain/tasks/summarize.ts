import { apiHandler } from '#shared/http/handler.ts';
import { summarize } from '#shared/domain/captain/service.ts';
import { ConversationTaskSchema } from '#shared/domain/captain/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'member',
  body: bodyOf(ConversationTaskSchema),
  run: (ctx) => summarize(ctx.account, ctx.actor, ctx.body),
});
