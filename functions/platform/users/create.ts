import { platformHandler } from '#shared/http/handler.ts';
import { createUser } from '#shared/domain/users/service.ts';
import { NewUserSchema } from '#shared/domain/users/schemas.ts';

export const handler = platformHandler({
  body: NewUserSchema,
  rootKey: 'user',
  run: ({ appId, body }) => createUser(appId, body),
});
