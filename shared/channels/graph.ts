import { createHmac } from 'node:crypto';
import type { ProviderAnswer } from './http.ts';

// Meta's Graph API, for the rooms that call it (Messenger; Instagram through a page): the `appsecret_proof` that
// goes with a token when the app requires it, and Graph's error in its own words.

/** `appsecret_proof`: hex HMAC-SHA256(app secret, access token). */
export const appSecretProof = (appSecret: string, accessToken: string) => createHmac('sha256', appSecret).update(accessToken).digest('hex');

/** Graph's error object of an answer (`{error: {message, type, code, error_subcode}}`), if it has one. */
export function graphError(a: ProviderAnswer): { message?: string; code?: number; type?: string } | undefined {
  if (a.ok && !a.json?.error) return undefined;
  const e = 'json' in a ? a.json?.error : undefined;
  return e && typeof e === 'object' ? { message: e.message, code: e.code, type: e.type } : {};
}

/** Whether Graph refused the token itself (expired, revoked, changed password): the page must be authorized again. */
export const isTokenError = (e: { code?: number; type?: string } | undefined) => !!e && (e.code === 190 || e.code === 102);
