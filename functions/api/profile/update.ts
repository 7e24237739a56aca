import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { userHandler } from '#shared/http/handler.ts';
import { parseMultipart } from '#shared/http/multipart.ts';
import { sessionCredentialsOf } from '#shared/http/auth.ts';
import { updateProfile } from '#shared/domain/users/profile.ts';
import { MAX_PROFILE_BODY_BYTES, ProfileUpdateSchema } from '#shared/domain/users/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = userHandler({
  body: bodyOf(ProfileUpdateSchema),
  rootKey: 'profile',
  multipart: parseMultipart,
  maxBodyBytes: MAX_PROFILE_BODY_BYTES,
  run: ({ user, body, event }) => updateProfile(user, body, sessionCredentialsOf(event as unknown as APIGatewayProxyEventV2)?.accessToken),
});
