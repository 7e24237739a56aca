import { config, providerConfig } from '#shared/config.ts';
import { signJwt, verifyJwt } from '#shared/crypto/jwt.ts';
import { getAccount } from '#shared/db/repositories/identity.ts';
import { isSuspended } from '#shared/domain/accounts/suspension.ts';
import { connectInstagram, saveInstagramToken } from '#shared/domain/inboxes/instagram.ts';
import { ServiceError, unprocessable } from '#shared/errors.ts';
import { log } from '#shared/log.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import { callProvider, type ProviderAnswer } from '../http.ts';

// Instagram's business login (docs/channels.md#instagram-login), as Chatwoot's Instagram authorizations and
// callbacks controllers: the authorization URL the dashboard opens, the OAuth callback (the code exchanged at
// INSTAGRAM_API_BASE_URL for a short-lived token, that one at INSTAGRAM_GRAPH_BASE_URL for a long-lived one, the
// account read, the inbox created or reauthorized, the browser sent on to the dashboard), and the long-lived token
// kept fresh.

/** Chatwoot's Graph version for Instagram login. */
export const IG_VERSION = 'v22.0';
/** Chatwoot's scopes (messages; the comments scope of newer Chatwoot versions belongs to a feature not built here). */
export const SCOPES = ['instagram_business_basic', 'instagram_business_manage_messages'];
/** The fields the account is subscribed to (Chatwoot's). */
export const IG_SUBSCRIBED_FIELDS = ['messages', 'message_reactions', 'messaging_seen'];
/** How long the `state` of an authorization URL is taken back (Chatwoot's never expires). */
const STATE_TTL_SECONDS = 3600;
const STATE_PURPOSE = 'instagram-oauth-state';
/** A long-lived token is refreshed once it expires within this (Chatwoot: 10 days, and at least a day old). */
const REFRESH_WITHIN_SECONDS = 10 * 24 * 3600;

const redirectUri = () => `${config().frontendUrl}/instagram/callback`;
const graph = () => providerConfig().instagramGraphBaseUrl;

/** `POST /api/v1/accounts/{a}/instagram/authorization`: Chatwoot's `{success: true, url}`. */
export async function authorizationUrl(accountId: number): Promise<{ success: true; url: string }> {
  const c = providerConfig();
  if (!c.instagramAppId || !c.instagramAppSecret) {
    throw unprocessable([
      { field: 'instagram', message: 'Instagram is not configured (INSTAGRAM_APP_ID, INSTAGRAM_APP_SECRET)', code: 'invalid' },
    ]);
  }
  // The parameters in name order, as Chatwoot's OAuth client builds the URL.
  const q = new URLSearchParams({
    client_id: c.instagramAppId,
    enable_fb_login: '0',
    force_authentication: '1',
    redirect_uri: redirectUri(),
    response_type: 'code',
    scope: SCOPES.join(','),
    state: await signJwt(STATE_PURPOSE, { sub: accountId }, STATE_TTL_SECONDS),
  });
  return { success: true, url: `${c.instagramApiBaseUrl}/oauth/authorize?${q}` };
}

/** Where the callback sends the browser. */
export interface CallbackAnswer {
  status: number;
  location?: string;
  error?: string;
}

const dashboard = (accountId: number, rest: string) => `${config().frontendUrl}/app/accounts/${accountId}/settings/inboxes/${rest}`;

/** Chatwoot's error page: the new-Instagram-inbox page with `error_type`, `code`, `error_message`. */
const errorPage = (accountId: number, e: { error_type: string; code: number | string; error_message: string }) =>
  dashboard(
    accountId,
    `new/instagram?${new URLSearchParams({ error_type: e.error_type, code: String(e.code), error_message: e.error_message })}`,
  );

class InstagramRefusal extends Error {
  constructor(readonly info: { error_type: string; code: number | string; error_message: string }) {
    super(info.error_message);
  }
}

/** Instagram's error of an answer, as Chatwoot hands it to its error page. */
function refusalOf(what: string, a: ProviderAnswer): InstagramRefusal {
  if (a.ok)
    return new InstagramRefusal({ error_type: 'OAuthException', code: 502, error_message: `${what}: unexpected answer from Instagram` });
  if (a.retry) return new InstagramRefusal({ error_type: 'OAuthException', code: 503, error_message: `${what}: Instagram did not answer` });
  const j = a.json;
  const e = j?.error && typeof j.error === 'object' ? j.error : j;
  return new InstagramRefusal({
    error_type: String(e?.error_type ?? e?.type ?? 'OAuthException'),
    code: Number(e?.code ?? a.status) || a.status,
    error_message: String(e?.error_message ?? e?.message ?? `${what}: refused by Instagram`),
  });
}

const str = (v: unknown) => (typeof v === 'string' && v ? v : typeof v === 'number' ? String(v) : undefined);

async function exchange(code: string) {
  const c = providerConfig();
  const form = new URLSearchParams({
    client_id: c.instagramAppId ?? '',
    client_secret: c.instagramAppSecret ?? '',
    code,
    grant_type: 'authorization_code',
    redirect_uri: redirectUri(),
  });
  const short = await callProvider({
    method: 'POST',
    url: `${c.instagramApiBaseUrl}/oauth/access_token`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  // Instagram may wrap the answer in `data: [...]`.
  const first = short.ok ? (Array.isArray(short.json?.data) ? short.json.data[0] : short.json) : undefined;
  const shortToken = str(first?.access_token);
  if (!shortToken) throw refusalOf('code not exchanged', short);
  const q = new URLSearchParams({
    grant_type: 'ig_exchange_token',
    client_secret: c.instagramAppSecret ?? '',
    access_token: shortToken,
    client_id: c.instagramAppId ?? '',
  });
  const long = await callProvider({ method: 'GET', url: `${graph()}/access_token?${q}` });
  const token = long.ok ? str(long.json?.access_token) : undefined;
  const expiresIn = long.ok ? Number(long.json?.expires_in) : Number.NaN;
  if (!token || !Number.isFinite(expiresIn)) throw refusalOf('token not exchanged', long);
  const fields = 'id,username,user_id,name,profile_picture_url,account_type';
  const me = await callProvider({
    method: 'GET',
    url: `${graph()}/${IG_VERSION}/me?${new URLSearchParams({ fields, access_token: token })}`,
  });
  const instagramId = me.ok ? str(me.json?.user_id) : undefined;
  const username = me.ok ? str(me.json?.username) : undefined;
  if (!instagramId || !/^\d{1,30}$/.test(instagramId) || !username) throw refusalOf('account not read', me);
  return {
    token,
    expiresAt: Math.floor(Date.now() / 1000) + Math.max(0, Math.floor(expiresIn)),
    instagramId,
    username: username.slice(0, 255),
  };
}

/** The account's messages subscribed to the app's webhook (errors logged and ignored, as Chatwoot). */
async function subscribe(instagramId: string, token: string) {
  const q = new URLSearchParams({ subscribed_fields: IG_SUBSCRIBED_FIELDS.join(','), access_token: token });
  const a = await callProvider({ method: 'POST', url: `${graph()}/${IG_VERSION}/${instagramId}/subscribed_apps?${q}` });
  if (!a.ok)
    log.warn('instagram account not subscribed', { instagramId, error: a.ok ? undefined : a.retry ? a.error : a.text.slice(0, 200) });
}

/**
 * `GET /instagram/callback?code&state` (Chatwoot's Instagram::CallbacksController): a `state` that is not ours is
 * 400 (Chatwoot fails with a 500), a suspended account's 403; Instagram's refusal (the user cancelled, a code refused) goes to Chatwoot's error
 * page; else the inbox is created (→ its agents page) or reauthorized (→ its settings page).
 */
export async function instagramCallback(query: Record<string, string>): Promise<CallbackAnswer> {
  const claims = await verifyJwt(STATE_PURPOSE, query.state);
  const accountId = typeof claims?.sub === 'number' ? claims.sub : undefined;
  const account = accountId === undefined ? undefined : await getAccount(accountId);
  if (accountId === undefined || !account) return { status: 400, error: 'state is invalid or expired' };
  if (isSuspended(account)) return { status: 403, error: 'Account is suspended' };
  if (query.error) {
    return {
      status: 302,
      location: errorPage(accountId, {
        error_type: query.error.slice(0, 100),
        code: 400,
        error_message: (query.error_description ?? 'Authorization was denied').slice(0, 500),
      }),
    };
  }
  if (!query.code || query.code.length > 2000) return { status: 400, error: 'code is missing' };
  try {
    const login = await exchange(query.code);
    const { inbox, existed } = await connectInstagram(account, {
      instagramId: login.instagramId,
      username: login.username,
      accessToken: login.token,
      expiresAt: login.expiresAt,
    });
    await subscribe(login.instagramId, login.token);
    return { status: 302, location: existed ? dashboard(accountId, String(inbox.id)) : dashboard(accountId, `new/${inbox.id}/agents`) };
  } catch (err) {
    if (err instanceof InstagramRefusal) return { status: 302, location: errorPage(accountId, err.info) };
    if (err instanceof ServiceError) {
      const message = err.errors[0]?.message ?? err.message;
      return { status: 302, location: errorPage(accountId, { error_type: err.kind, code: 422, error_message: message }) };
    }
    throw err;
  }
}

/**
 * The inbox's token, refreshed first when it expires within ten days (Chatwoot's RefreshOauthTokenService, asked
 * on every use): lazily, on the sends and profile reads that need it, so an inbox costs nothing until then. A
 * refresh Instagram refuses keeps the current token (still valid until it expires).
 */
export async function instagramToken(inbox: InboxRecord): Promise<string> {
  const token = inbox.access_token ?? '';
  const expiresAt = inbox.expires_at ?? 0;
  const nowS = Math.floor(Date.now() / 1000);
  if (!token || !expiresAt || expiresAt <= nowS || expiresAt - nowS > REFRESH_WITHIN_SECONDS) return token;
  const q = new URLSearchParams({ grant_type: 'ig_refresh_token', access_token: token });
  const a = await callProvider({ method: 'GET', url: `${graph()}/refresh_access_token?${q}` });
  const fresh = a.ok ? str(a.json?.access_token) : undefined;
  const expiresIn = a.ok ? Number(a.json?.expires_in) : Number.NaN;
  if (!fresh || !Number.isFinite(expiresIn)) {
    log.warn('instagram token not refreshed', { inboxId: inbox.id, error: a.ok ? 'no token' : a.retry ? a.error : a.text.slice(0, 200) });
    return token;
  }
  await saveInstagramToken(inbox, fresh, nowS + Math.floor(expiresIn));
  return fresh;
}
