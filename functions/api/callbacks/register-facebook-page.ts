import { setUpChannelInbox } from '#shared/channels/setup.ts';
import { RegisterFacebookPageSchema, registerFacebookPage } from '#shared/domain/inboxes/facebook.ts';
import { apiHandler } from '#shared/http/handler.ts';
import { bodyOf } from '#shared/validate.ts';

// `POST /api/v1/accounts/{account_id}/callbacks/register_facebook_page` (docs/channels.md#facebook-messenger).
export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(RegisterFacebookPageSchema),
  run: ({ account, body }) => registerFacebookPage(account, body, setUpChannelInbox),
});
