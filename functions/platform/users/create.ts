import { platformHandler } from '#shared/http/handler.ts';
import { createUser } from '#shared/domain/users/service.ts';
import { NewUserSchema } from '#shared/domain/users/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = platformHandler({
  body: bodyOf(NewUserSchema),
  rootKey: 'user',
  run: ({ appId, body }) => createUser(appId, body),
});
