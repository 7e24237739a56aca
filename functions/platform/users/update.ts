import { intParam, platformHandler } from '#shared/http/handler.ts';
import { updateUser } from '#shared/domain/users/service.ts';
import { UserUpdateSchema } from '#shared/domain/users/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = platformHandler({
  body: bodyOf(UserUpdateSchema),
  rootKey: 'user',
  run: (ctx) => updateUser(ctx.appId, intParam(ctx, 'id', 'User'), ctx.body),
});
