import { reauthorizeFacebookPage } from '#shared/channels/facebook/pages.ts';
import { ReauthorizePageSchema } from '#shared/domain/inboxes/facebook.ts';
import { apiHandler } from '#shared/http/handler.ts';
import { bodyOf } from '#shared/validate.ts';

// `POST /api/v1/accounts/{account_id}/callbacks/reauthorize_page` (docs/channels.md#facebook-messenger).
export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(ReauthorizePageSchema),
  run: ({ account, body }) => reauthorizeFacebookPage(account, body.inbox_id, body.omniauth_token),
});
