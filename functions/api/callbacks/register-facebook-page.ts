import { setUpChannelInbox } from '#shared/channels/setup.ts';
import { RegisterFacebookPageSchema, registerFacebookPage } from '#shared/domain/inboxes/facebook.ts';
import { apiHandler } from '#shared/http/handler.ts';

// `POST /api/v1/accounts/{account_id}/callbacks/register_facebook_page` (docs/channels.md#facebook-messenger).
export const handler = apiHandler({
  access: 'administrator',
  body: RegisterFacebookPageSchema,
  run: ({ account, body }) => registerFacebookPage(account, body, setUpChannelInbox),
});
