import { listFacebookPages } from '#shared/channels/facebook/pages.ts';
import { FacebookPagesSchema } from '#shared/domain/inboxes/facebook.ts';
import { apiHandler } from '#shared/http/handler.ts';
import { bodyOf } from '#shared/validate.ts';

// `POST /api/v1/accounts/{account_id}/callbacks/facebook_pages` (docs/channels.md#facebook-messenger).
export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(FacebookPagesSchema),
  run: ({ account, body }) => listFacebookPages(account, body.omniauth_token),
});
