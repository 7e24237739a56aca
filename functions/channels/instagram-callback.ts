import { instagramCallback } from '#shared/channels/instagram/login.ts';
import { ServiceError } from '#shared/errors.ts';
import { rawHandler } from '#shared/http/raw.ts';

// `GET /instagram/callback`: Instagram's OAuth redirect back (docs/channels.md#instagram-login); the browser is sent
// on to the dashboard; a `state` that is not ours is 400, a suspended account's 403.
export const handler = rawHandler(async (req) => {
  const a = await instagramCallback(req.query);
  if (a.location) return { status: a.status, location: a.location };
  const error = a.error ?? 'bad request';
  return {
    status: a.status,
    body: { error, ...new ServiceError('invalid', error, [{ field: 'state', message: error, code: 'invalid' }]).body },
  };
});
