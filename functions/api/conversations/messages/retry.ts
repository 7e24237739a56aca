import { apiHandler, intParam } from '#shared/http/handler.ts';
import { retryMessage } from '#shared/domain/channels/send.ts';

// `POST …/messages/{message_id}/retry` (docs/channels.md#outgoing): the message is `sent` again, content attributes
// cleared, and its channel sends it again.
export const handler = apiHandler({
  access: 'member',
  run: (ctx) =>
    retryMessage(ctx.account, ctx.actor, intParam(ctx, 'conversation_id', 'Conversation'), intParam(ctx, 'message_id', 'Message')),
});
