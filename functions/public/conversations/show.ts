import { intParam, publicHandler } from '#shared/http/handler.ts';
import { showPublicConversation } from '#shared/domain/public/service.ts';

// Contract endpoint 13 (docs/contract.md#endpoints).
export const handler = publicHandler({
  run: (ctx) =>
    showPublicConversation(ctx.params.inbox_identifier, ctx.params.contact_identifier, intParam(ctx, 'conversation_id', 'Conversation')),
});
