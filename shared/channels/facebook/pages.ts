import { providerConfig } from '#shared/config.ts';
import { pageInbox, pagesHeld, reauthorizePage } from '#shared/domain/inboxes/facebook.ts';
import { ServiceError, unprocessable } from '#shared/errors.ts';
import type { AccountRecord } from '#shared/model/identity.ts';
import { graphError, tokenQuery } from '../graph.ts';
import { callProvider } from '../http.ts';

// The dashboard's Facebook login, after the OAuth dialog (docs/channels.md#facebook-messenger): Chatwoot's
// `callbacks/facebook_pages` (the user's pages, each flagged whether the account holds it) and
// `callbacks/reauthorize_page` (a page inbox given fresh tokens). Both exchange the login's token for a long-lived
// one, then read the user's pages, as Chatwoot does through Koala (Graph's unversioned paths).

type Page = Record<string, unknown> & { id?: unknown; access_token?: unknown };

const refused = (what: string, a: Awaited<ReturnType<typeof callProvider>>) =>
  !a.ok && a.retry
    ? new ServiceError('unavailable', 'Facebook did not answer; try again', [])
    : unprocessable([{ field: 'omniauth_token', message: `${what}: ${graphError(a)?.message ?? 'refused by Facebook'}`, code: 'invalid' }]);

async function userPages(omniauthToken: string): Promise<{ userToken: string; pages: Page[] }> {
  const c = providerConfig();
  const q = new URLSearchParams({
    grant_type: 'fb_exchange_token',
    client_id: c.fbAppId ?? '',
    client_secret: c.fbAppSecret ?? '',
    fb_exchange_token: omniauthToken,
  });
  const exchanged = await callProvider({ method: 'GET', url: `${c.facebookGraphBaseUrl}/oauth/access_token?${q}` });
  const userToken = exchanged.ok ? exchanged.json?.access_token : undefined;
  if (typeof userToken !== 'string' || !userToken) throw refused('not exchanged', exchanged);
  const listed = await callProvider({ method: 'GET', url: `${c.facebookGraphBaseUrl}/me/accounts?${tokenQuery(userToken)}` });
  if (!listed.ok) throw refused('pages not read', listed);
  const pages = Array.isArray(listed.json?.data) ? (listed.json.data as Page[]).filter((p) => p && typeof p === 'object') : [];
  return { userToken, pages };
}

/** `POST …/callbacks/facebook_pages`: `{data: {page_details: [page + exists], user_access_token}}`. */
export async function listFacebookPages(account: AccountRecord, omniauthToken: string) {
  const { userToken, pages } = await userPages(omniauthToken);
  const held = await pagesHeld(
    account,
    pages.map((p) => String(p.id)).filter((id) => /^\d{1,30}$/.test(id)),
  );
  return { data: { page_details: pages.map((p) => ({ ...p, exists: held.has(String(p.id)) })), user_access_token: userToken } };
}

/** `POST …/callbacks/reauthorize_page`: the inbox's page among the user's pages takes its new token; else 422. */
export async function reauthorizeFacebookPage(account: AccountRecord, inboxId: number, omniauthToken: string) {
  const inbox = await pageInbox(account, inboxId);
  const { userToken, pages } = await userPages(omniauthToken);
  const page = pages.find((p) => String(p.id) === inbox.page_id);
  if (!page || typeof page.access_token !== 'string') {
    throw unprocessable([{ field: 'inbox_id', message: 'the page is not among the user’s pages', code: 'invalid' }]);
  }
  return reauthorizePage(account, inbox, { page: page.access_token, user: userToken });
}
