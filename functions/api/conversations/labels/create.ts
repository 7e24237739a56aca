import { apiHandler, intParam } from '#shared/http/handler.ts';
import { setLabels } from '#shared/domain/conversations/service.ts';
import { LabelsSchema } from '#shared/domain/conversations/schemas.ts';

export const handler = apiHandler({
  access: 'member',
  body: LabelsSchema,
  run: (ctx) => setLabels(ctx.account, ctx.actor, intParam(ctx, 'conversation_id', 'Conversation'), ctx.body.labels ?? []),
});
