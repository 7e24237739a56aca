import { authorizationUrl } from '#shared/channels/instagram/login.ts';
import { apiHandler } from '#shared/http/handler.ts';

// `POST /api/v1/accounts/{account_id}/instagram/authorization`: Instagram's login URL (docs/channels.md#instagram-login).
export const handler = apiHandler({
  access: 'administrator',
  run: ({ account }) => authorizationUrl(account.id),
});
