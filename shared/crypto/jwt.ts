import { createHmac, timingSafeEqual } from 'node:crypto';
import { derivedKey } from './tokens.ts';

// Compact JSON Web Tokens signed with HS256 (RFC 7519) under a key derived from the token key, one key
// per purpose. Verification accepts HS256 only: a token naming any other algorithm (or `none`) is refused.

export type Claims = Record<string, unknown>;

/** Far longer than any token we issue; longer input is refused before any work is done. */
const MAX_TOKEN = 4096;

const b64 = (x: string | Buffer) => Buffer.from(x).toString('base64url');
const HEADER = b64(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));

const mac = async (purpose: string, signingInput: string) =>
  createHmac('sha256', await derivedKey(`jwt:${purpose}`))
    .update(signingInput)
    .digest();

function parseJson(part: string): Claims | undefined {
  try {
    const x = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return x && typeof x === 'object' && !Array.isArray(x) ? x : undefined;
  } catch {
    return undefined;
  }
}

/** A token carrying `claims` plus `iat` and, when `ttlSeconds` is given, `exp`. */
export async function signJwt(purpose: string, claims: Claims, ttlSeconds?: number): Promise<string> {
  const iat = Math.floor(Date.now() / 1000);
  const body = b64(JSON.stringify({ ...claims, iat, ...(ttlSeconds ? { exp: iat + ttlSeconds } : {}) }));
  return `${HEADER}.${body}.${b64(await mac(purpose, `${HEADER}.${body}`))}`;
}

/** The claims of a token signed for `purpose` that has not expired; undefined for anything else. */
export async function verifyJwt(purpose: string, token: string | undefined): Promise<Claims | undefined> {
  if (!token || token.length > MAX_TOKEN) return undefined;
  const [header, body, signature, extra] = token.split('.');
  if (!header || !body || !signature || extra !== undefined) return undefined;
  if (parseJson(header)?.alg !== 'HS256') return undefined;
  const given = Buffer.from(signature, 'base64url');
  const expected = await mac(purpose, `${header}.${body}`);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const claims = parseJson(body);
  if (!claims) return undefined;
  if (typeof claims.exp === 'number' && claims.exp <= Date.now() / 1000) return undefined;
  return claims;
}
