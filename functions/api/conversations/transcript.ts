import { apiHandler, intParam } from '#shared/http/handler.ts';
import { mailConversationTranscript } from '#shared/domain/conversations/transcript.ts';
import { TranscriptSchema } from '#shared/domain/conversations/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'member',
  body: bodyOf(TranscriptSchema),
  run: (ctx) => mailConversationTranscript(ctx.account.id, ctx.actor, intParam(ctx, 'conversation_id', 'Conversation'), ctx.body.email),
});
