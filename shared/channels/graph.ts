import { createHmac } from 'node:crypto';
import { config } from '#shared/config.ts';
import type { ProviderAnswer } from './http.ts';

// Meta's Graph API, for the rooms that call it (Messenger; Instagram through a page): the `appsecret_proof` that
// goes with a token when the app requires it, and Graph's error in its own words.

/** `appsecret_proof`: hex HMAC-SHA256(app secret, access token). */
export const appSecretProof = (appSecret: string, accessToken: string) => createHmac('sha256', appSecret).update(accessToken).digest('hex');

/** `access_token` and, with an app secret, its `appsecret_proof`. */
export function tokenQuery(token: string): string {
  const secret = config().fbAppSecret;
  const q = new URLSearchParams({ access_token: token });
  if (secret) q.set('appsecret_proof', appSecretProof(secret, token));
  return q.toString();
}

/** Graph's error object of an answer (`{error: {message, type, code, error_subcode}}`), if it has one. */
export function graphError(a: ProviderAnswer): { message?: string; code?: number; type?: string } | undefined {
  if (a.ok && !a.json?.error) return undefined;
  const e = 'json' in a ? a.json?.error : undefined;
  return e && typeof e === 'object' ? { message: e.message, code: e.code, type: e.type } : {};
}

/** Whether Graph refused the token itself (expired, revoked, changed password): the page must be authorized again. */
export const isTokenError = (e: { code?: number; type?: string } | undefined) => !!e && (e.code === 190 || e.code === 102);

/** Graph's error in Instagram's words: Chatwoot's `"<code> - <message>"`. */
export const instagramErrorText = (e: { message?: string; code?: number } | undefined) =>
  e?.message ? `${e.code ?? ''} - ${e.message}` : 'Instagram was unable to process this request';

/**
 * Nested form fields as Rails encodes them (`recipient[id]=…&message[attachment][payload][url]=…`): Chatwoot sends
 * Instagram's messages form-encoded.
 */
export function nestedForm(value: Record<string, unknown>, prefix = ''): [string, string][] {
  return Object.entries(value).flatMap(([k, v]) => {
    const key = prefix ? `${prefix}[${k}]` : k;
    return v && typeof v === 'object'
      ? nestedForm(v as Record<string, unknown>, key)
      : v === undefined
        ? []
        : [[key, String(v)] as [string, string]];
  });
}
