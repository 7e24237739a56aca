import { intParam, publicHandler } from '#shared/http/handler.ts';
import { markPublicConversationSeen } from '#shared/domain/public/service.ts';

// Contract endpoint 14 (docs/contract.md#endpoints).
export const handler = publicHandler({
  run: (ctx) =>
    markPublicConversationSeen(
      ctx.params.inbox_identifier,
      ctx.params.contact_identifier,
      intParam(ctx, 'conversation_id', 'Conversation'),
    ),
});
