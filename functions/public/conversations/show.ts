import { intParam, publicHandler } from '../../../shared/http/handler.ts';
import { showPublicConversation } from '../../../shared/domain/public/service.ts';

// Spec endpoint 13.
export const handler = publicHandler({
  run: (ctx) =>
    showPublicConversation(ctx.params.inbox_identifier, ctx.params.contact_identifier, intParam(ctx, 'conversation_id', 'Conversation')),
});
