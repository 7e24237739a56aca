import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

// The providers' webhook signatures (docs/channels.md#signatures), checked over the exact bytes received.

/** `sha256=<hex>` of HMAC-SHA256(secret, body), compared in constant time (Meta's X-Hub-Signature-256). */
export function hubSignatureValid(body: Buffer, header: string | undefined, secret: string): boolean {
  if (!header?.startsWith('sha256=')) return false;
  const expected = createHmac('sha256', secret).update(body).digest();
  const given = Buffer.from(header.slice(7), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * Twilio's X-Twilio-Signature: base64 HMAC-SHA1(auth token, the public URL + every POST parameter's name and value
 * in name order), compared in constant time.
 */
export function twilioSignatureValid(url: string, params: [string, string][], header: string | undefined, authToken: string): boolean {
  // An empty key signs for anyone: an inbox without its auth token takes nothing.
  if (!header || !authToken) return false;
  const data =
    url +
    [...params]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => k + v)
      .join('');
  const expected = createHmac('sha1', authToken).update(data, 'utf8').digest();
  const given = Buffer.from(header, 'base64');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** LINE's X-Line-Signature: base64 HMAC-SHA256(channel secret, body), compared in constant time. */
export function lineSignatureValid(body: Buffer, header: string | undefined, channelSecret: string): boolean {
  if (!header || !channelSecret) return false;
  const expected = createHmac('sha256', channelSecret).update(body).digest();
  const given = Buffer.from(header, 'base64');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Meta's legacy `X-Hub-Signature: sha1=<hex HMAC-SHA1(app secret, body)>`, compared in constant time. */
export function hubSha1SignatureValid(body: Buffer, header: string | undefined, secret: string): boolean {
  if (!header?.startsWith('sha1=')) return false;
  const expected = createHmac('sha1', secret).update(body).digest();
  const given = Buffer.from(header.slice(5), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * A shared secret presented as is (a verify token, a webhook secret) against the expected one, in constant time;
 * nothing matches an empty expected secret.
 */
export function secretMatches(given: string | undefined, expected: string | undefined): boolean {
  if (!expected || given === undefined) return false;
  // Digests first: equal lengths for timingSafeEqual, and no early exit that tells how much of a guess was right.
  return timingSafeEqual(createHash('sha256').update(given).digest(), createHash('sha256').update(expected).digest());
}
