import { apiHandler, intParam } from '#shared/http/handler.ts';
import { setLabels } from '#shared/domain/conversations/service.ts';
import { LabelsSchema } from '#shared/domain/conversations/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'member',
  body: bodyOf(LabelsSchema),
  run: (ctx) => setLabels(ctx.account, ctx.actor, intParam(ctx, 'conversation_id', 'Conversation'), ctx.body.labels ?? []),
});
