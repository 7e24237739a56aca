import { apiHandler } from '#shared/http/handler.ts';
import { rewrite } from '#shared/domain/captain/service.ts';
import { RewriteSchema } from '#shared/domain/captain/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'member',
  body: bodyOf(RewriteSchema),
  run: (ctx) => rewrite(ctx.account, ctx.actor, ctx.body),
});
