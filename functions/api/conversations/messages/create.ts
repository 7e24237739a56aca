import { apiHandler, intParam } from '#shared/http/handler.ts';
import { parseMultipart } from '#shared/http/multipart.ts';
import { createMessage } from '#shared/domain/messages/service.ts';
import { NewMessageSchema } from '#shared/domain/messages/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'member',
  bots: true,
  body: bodyOf(NewMessageSchema),
  multipart: parseMultipart,
  run: (ctx) => createMessage(ctx.account, ctx.actor, intParam(ctx, 'conversation_id', 'Conversation'), ctx.body),
});
