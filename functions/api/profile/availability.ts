import { userHandler } from '#shared/http/handler.ts';
import { setAvailability } from '#shared/domain/users/profile.ts';
import { AvailabilitySchema } from '#shared/domain/users/schemas.ts';

export const handler = userHandler({
  body: AvailabilitySchema,
  rootKey: 'profile',
  run: ({ user, body }) => setAvailability(user, body),
});
