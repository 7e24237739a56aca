import { intParam, publicHandler } from '#shared/http/handler.ts';
import { resolvePublicConversation } from '#shared/domain/public/service.ts';

export const handler = publicHandler({
  run: (ctx) =>
    resolvePublicConversation(ctx.params.inbox_identifier, ctx.params.contact_identifier, intParam(ctx, 'conversation_id', 'Conversation')),
});
