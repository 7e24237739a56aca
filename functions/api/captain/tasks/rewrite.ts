import { apiHandler } from '#shared/http/handler.ts';
import { rewrite } from '#shared/domain/captain/service.ts';
import { RewriteSchema } from '#shared/domain/captain/schemas.ts';

export const handler = apiHandler({
  access: 'member',
  body: RewriteSchema,
  run: (ctx) => rewrite(ctx.account, ctx.actor, ctx.body),
});
