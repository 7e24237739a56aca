import { intParam, publicHandler } from '#shared/http/handler.ts';
import { listPublicMessages } from '#shared/domain/public/service.ts';

export const handler = publicHandler({
  run: (ctx) =>
    listPublicMessages(
      ctx.params.inbox_identifier,
      ctx.params.contact_identifier,
      intParam(ctx, 'conversation_id', 'Conversation'),
      ctx.query,
    ),
});
