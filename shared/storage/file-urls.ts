import { createHmac, timingSafeEqual } from 'node:crypto';
import { config } from '#shared/config.ts';
import { derivedKey } from '#shared/crypto/tokens.ts';

// Stored files (attachments, avatars) reach clients only through signed links that expire:
// `/rails/active_storage/blobs/redirect/<signed id>/<filename>`, Chatwoot's path, where the signed id
// carries the object's key, its name and an expiry under an HMAC-SHA256 of a key of this purpose alone.
// Nothing in a link names a file by itself: ids and keys guessed or changed fail the MAC. Records keep a
// reference to the object (`stored:<key>`; uploads before signed links kept `<base>/avatars/<base64url key>`,
// read the same way), and every view turns it into a link with `fileUrl` — external URLs a client gave
// (an avatar on another host) pass through as they are.
//
// A reference is signed only when its key lies under the prefixes of the record that holds it (`fileScope`):
// a client that writes another file's old-style URL into its avatar gets no link to that file.
//
// Links are made synchronously (views are plain functions), with a key every entry point loads once per
// container beforehand (`fileSigningReady`: the HTTP chain, the pipeline); no I/O per link.

const STORED = 'stored:';
export const FILE_ROUTE = '/rails/active_storage/blobs/redirect';
/** Far longer than any signed id we make (a key is at most ~1 KB); longer input is refused unread. */
const MAX_SIGNED_ID = 4096;

/** What a record keeps for an object it stored. */
export const storedRef = (key: string): string => `${STORED}${key}`;

/**
 * The storage key a record's reference names (either form), or undefined for anything else. An old-style
 * URL counts on this service's own base URL only, unless `anyHost` (the purge, which deletes what a
 * message stored whatever base URL it was stored under; clients never write a message's files).
 */
export function storedKeyOf(ref: unknown, anyHost = false): string | undefined {
  if (typeof ref !== 'string' || !ref) return undefined;
  if (ref.startsWith(STORED)) return ref.slice(STORED.length) || undefined;
  if (anyHost) {
    const m = /^https?:\/\/[^/]+(?:\/[^?#]*)?\/avatars\/([^/?#]+)$/.exec(ref);
    return m ? legacyKeyOf(m[1]) : undefined;
  }
  const legacy = `${config().publicBaseUrl}/avatars/`;
  return ref.startsWith(legacy) ? legacyKeyOf(ref.slice(legacy.length)) : undefined;
}

/** The key of a pre-signing `/avatars/<segment>` URL's segment (base64url of the key, canonical only). */
export function legacyKeyOf(segment: string): string | undefined {
  if (!/^[A-Za-z0-9_-]{1,1400}$/.test(segment)) return undefined;
  const key = Buffer.from(segment, 'base64url').toString('utf8');
  return Buffer.from(key, 'utf8').toString('base64url') === segment ? key : undefined;
}

/** The key prefixes a reference of each kind of record may name (see above). */
export type FileScope = readonly string[];
export const fileScope = {
  attachment: (accountId: number): FileScope => [`attachments/${accountId}/`, `attachments/direct/${accountId}/`],
  userAvatar: (userId: number): FileScope => [`avatars/users/${userId}/`],
  // A merged contact may keep the other contact's avatar: the account's contact avatars.
  contactAvatar: (accountId: number): FileScope => [`avatars/contacts/${accountId}/`],
  inboxAvatar: (accountId: number): FileScope => [`avatars/inboxes/${accountId}/`],
  // What an account uploaded on its own (`POST …/upload`): portal logos, images of articles.
  accountUpload: (accountId: number): FileScope => [`uploads/${accountId}/`],
} as const;

/** Objects the route serves at all. */
const SERVED = /^(avatars|attachments|exports|imports|uploads)\//;

// ── the signing key ────────────────────────────────────────────────────────────────────────────────

// Derived from the token key (its first version, so rotation never invalidates links handed out), which
// every function already reads to open sealed secrets; the purpose keeps it apart from every other use.
const PURPOSE = 'file-url:v1';
let signing: { source: string; key: Buffer } | undefined;
let loading: Promise<void> | undefined;

const keySource = () => {
  const c = config();
  return JSON.stringify([c.tokenKeyFile, c.tokenKey, c.tokenKeySecretArn]);
};

/** Loads the signing key (once per container; again only when the configured key source changes). */
export async function fileSigningReady(): Promise<void> {
  const source = keySource();
  if (signing?.source === source) return;
  loading ??= derivedKey(PURPOSE)
    .then((key) => {
      signing = { source, key };
    })
    .finally(() => {
      loading = undefined;
    });
  return loading;
}

function signingKey(): Buffer {
  if (!signing) throw new Error('File links are signed before the signing key was loaded (await fileSigningReady() at the entry point)');
  return signing.key;
}

const macOf = (payload: string, key: Buffer) => createHmac('sha256', key).update(payload, 'utf8').digest();

// ── making links ───────────────────────────────────────────────────────────────────────────────────

/**
 * When a link made now expires (epoch seconds): at least `ttl` ahead, rounded up to a step of a seventh
 * of it (at most a day), so one file's link stays the same for a while and browsers keep it cached.
 */
export function linkExpiry(nowMs: number, ttlSeconds: number): number {
  const step = Math.min(86_400, Math.max(1, Math.floor(ttlSeconds / 7)));
  return Math.ceil((Math.floor(nowMs / 1000) + ttlSeconds) / step) * step;
}

/** A file name as the link's last segment shows it (never a path). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters never reach a link.
const linkName = (name: string) => name.replace(/[/\\\u0000-\u001f]+/g, '_').slice(0, 255) || 'file';

/** The signed link of a storage key (no scope check: callers hold the key of a file they may show). */
export function signedFileUrl(key: string, name?: string, expires = linkExpiry(Date.now(), config().fileUrlTtlSeconds)): string {
  const n = linkName(name ?? key.slice(key.lastIndexOf('/') + 1));
  const payload = Buffer.from(JSON.stringify({ k: key, n, e: expires }), 'utf8').toString('base64url');
  const mac = macOf(payload, signingKey()).toString('base64url');
  return `${config().publicBaseUrl}${FILE_ROUTE}/${payload}--${mac}/${encodeURIComponent(n)}`;
}

/**
 * THE way a stored file reference reaches a client: a reference to one of our objects within `scope` becomes
 * a signed link; an external URL passes unchanged; empty stays empty. A `stored:` reference outside its
 * scope renders empty (never as the internal form); an old-style URL outside it stays as written (it is a
 * URL a client gave, and serves nothing).
 */
export function fileUrl(ref: string | null | undefined, scope: FileScope, name?: string): string {
  if (!ref) return '';
  const key = storedKeyOf(ref);
  if (key === undefined) return ref.startsWith(STORED) ? '' : ref;
  if (!SERVED.test(key) || !scope.some((p) => key.startsWith(p))) return ref.startsWith(STORED) ? '' : ref;
  return signedFileUrl(key, name);
}

// ── checking links ─────────────────────────────────────────────────────────────────────────────────

export interface SignedFile {
  key: string;
  name: string;
  /** Epoch seconds. */
  expires: number;
}

/**
 * The file a link names, when its MAC is ours, it has not expired and its last segment is the name it was
 * signed with; undefined for anything else (which one failed is not told).
 */
export async function verifiedFile(signedId: string, filename: string, nowMs = Date.now()): Promise<SignedFile | undefined> {
  if (!signedId || signedId.length > MAX_SIGNED_ID) return undefined;
  const m = /^([A-Za-z0-9_-]+)--([A-Za-z0-9_-]{43})$/.exec(signedId);
  if (!m) return undefined;
  await fileSigningReady();
  // Compared as text: a MAC's non-canonical spellings (its last character's unused bits) are refused too.
  const given = Buffer.from(m[2], 'utf8');
  const expected = Buffer.from(macOf(m[1], signingKey()).toString('base64url'), 'utf8');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  let claims: { k?: unknown; n?: unknown; e?: unknown };
  try {
    claims = JSON.parse(Buffer.from(m[1], 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const { k, n, e } = claims ?? {};
  if (typeof k !== 'string' || typeof n !== 'string' || typeof e !== 'number' || !SERVED.test(k)) return undefined;
  if (e * 1000 <= nowMs) return undefined;
  // Routers differ in whether a path parameter arrives decoded: either form of the signed name.
  if (filename !== n && filename !== encodeURIComponent(n)) return undefined;
  return { key: k, name: n, expires: e };
}
