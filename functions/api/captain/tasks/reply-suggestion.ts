import { apiHandler } from '#shared/http/handler.ts';
import { replySuggestion } from '#shared/domain/captain/service.ts';
import { ConversationTaskSchema } from '#shared/domain/captain/schemas.ts';

export const handler = apiHandler({
  access: 'member',
  body: ConversationTaskSchema,
  run: (ctx) => replySuggestion(ctx.account, ctx.actor, ctx.body),
});
