import { userHandler } from '#shared/http/handler.ts';
import { setAvailability } from '#shared/domain/users/profile.ts';
import { AvailabilitySchema } from '#shared/domain/users/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = userHandler({
  body: bodyOf(AvailabilitySchema),
  rootKey: 'profile',
  run: ({ user, body }) => setAvailability(user, body),
});
