import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { config } from '#shared/config.ts';
import { observed } from '#shared/aws/observe.ts';

// Access tokens: 192 random bits (136 after an owner prefix, below), base64url. Only their SHA-256 is a key in the table; where a record
// must show its token (user, agent bot), an AES-256-GCM sealed copy is kept on the record.

export const newToken = (): string => randomBytes(24).toString('base64url');

// Tokens of users and agent bots (and sessions' access-tokens) name their owner inside the same 32
// characters: a marker byte, the owner id in 6 bytes, then 136 random bits. The owner named is only a hint
// for which items to read beside the token (one round trip for a token the container has not seen); it is
// trusted only when the token's own record names the same owner, so a forged hint costs a second read,
// never access. Older tokens (192 random bits) carry no hint (a random first byte matching a marker is
// again only a wrong hint).
const OWNER_MARKS = { user: 0xa7, agent_bot: 0xb7 } as const;
export type HintedOwner = keyof typeof OWNER_MARKS;

export function ownerToken(ownerType: HintedOwner, ownerId: number): string {
  const bytes = randomBytes(24);
  bytes[0] = OWNER_MARKS[ownerType];
  bytes.writeUIntBE(ownerId, 1, 6);
  return bytes.toString('base64url');
}

/** The owner a token names (see `ownerToken`), unverified; undefined for a token without one. */
export function tokenOwnerHint(token: string): { owner_type: HintedOwner; owner_id: number } | undefined {
  if (!/^[A-Za-z0-9_-]{32}$/.test(token)) return undefined;
  const bytes = Buffer.from(token, 'base64url');
  const owner_type = bytes[0] === OWNER_MARKS.user ? 'user' : bytes[0] === OWNER_MARKS.agent_bot ? 'agent_bot' : undefined;
  const owner_id = bytes.readUIntBE(1, 6);
  return owner_type && owner_id > 0 && owner_id <= Number.MAX_SAFE_INTEGER ? { owner_type, owner_id } : undefined;
}

// A contact inbox's pubsub token (the contact's socket credential) names its contact inbox the same way: a
// marker byte, account, contact and inbox ids in 6 bytes each, then 136 random bits (48 characters). The
// socket then finds the contact inbox by key instead of through an index copy of every contact inbox. As
// with owner hints, the location is only where to look: the token must equal the one stored there.
// Older tokens (24 random characters) carry none.
const PUBSUB_MARK = 0xc1;

export function locatedPubsubToken(accountId: number, contactId: number, inboxId: number): string {
  const bytes = randomBytes(36);
  bytes[0] = PUBSUB_MARK;
  bytes.writeUIntBE(accountId, 1, 6);
  bytes.writeUIntBE(contactId, 7, 6);
  bytes.writeUIntBE(inboxId, 13, 6);
  return bytes.toString('base64url');
}

/** The contact inbox a pubsub token names (see `locatedPubsubToken`), unverified; undefined for an older token. */
export function pubsubTokenLocation(token: string): { account_id: number; contact_id: number; inbox_id: number } | undefined {
  if (!/^[A-Za-z0-9_-]{48}$/.test(token)) return undefined;
  const bytes = Buffer.from(token, 'base64url');
  if (bytes[0] !== PUBSUB_MARK) return undefined;
  const [account_id, contact_id, inbox_id] = [1, 7, 13].map((at) => bytes.readUIntBE(at, 6));
  return account_id > 0 && contact_id > 0 && inbox_id > 0 ? { account_id, contact_id, inbox_id } : undefined;
}

// A password reset token names its user the same way (a marker byte, the user id in 6 bytes, then 136
// random bits), so that the one reset item of that user is read by key and compared with the token's hash:
// the item holds only the newest token, which is how a newer or a used link kills every older one.
const RESET_MARK = 0xd1;

export function resetToken(userId: number): string {
  const bytes = randomBytes(24);
  bytes[0] = RESET_MARK;
  bytes.writeUIntBE(userId, 1, 6);
  return bytes.toString('base64url');
}

/** The user a reset token names (see `resetToken`), unverified; undefined for anything else. */
export function resetTokenUser(token: string): number | undefined {
  if (!/^[A-Za-z0-9_-]{32}$/.test(token)) return undefined;
  const bytes = Buffer.from(token, 'base64url');
  const userId = bytes.readUIntBE(1, 6);
  return bytes[0] === RESET_MARK && userId > 0 && userId <= Number.MAX_SAFE_INTEGER ? userId : undefined;
}

export const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** Opaque random identifiers (inbox identifiers, pubsub tokens, webhook secrets). */
export const randomId = (bytes = 16): string => randomBytes(bytes).toString('base64url');

/**
 * The sealing keys, by version. Sealed values name the version that sealed them, so a new version can be
 * added (rotation) while every older one still opens until the background re-seal has moved them on.
 * Key material is either one key (version 1, as first deployed) or JSON `{"current": n, "keys": {"1": …}}`.
 */
export interface Keyring {
  current: number;
  keys: Map<number, Buffer>;
}

const keyBytes = (material: string): Buffer => {
  const key = /^[A-Za-z0-9+/=_-]{43,44}$/.test(material) ? Buffer.from(material, 'base64') : undefined;
  // A generated secret string is not base64 of 32 bytes: derive the key from it instead.
  return key?.length === 32 ? key : createHash('sha256').update(material, 'utf8').digest();
};

export interface KeyMaterial {
  current: number;
  keys: Record<string, string>;
}

export function parseKeyMaterial(material: string): KeyMaterial {
  const text = material.trim();
  if (text.startsWith('{')) {
    const parsed = JSON.parse(text) as KeyMaterial;
    if (!Number.isInteger(parsed.current) || typeof parsed.keys?.[String(parsed.current)] !== 'string') {
      throw new Error('Token key JSON must name its current version among its keys');
    }
    return parsed;
  }
  return { current: 1, keys: { '1': text } };
}

/** Adds a fresh key version and makes it current (what `npm run rotate-key` stores). */
export function addKeyVersion(material: string): KeyMaterial {
  const parsed = parseKeyMaterial(material);
  const next = Math.max(...Object.keys(parsed.keys).map(Number)) + 1;
  return { current: next, keys: { ...parsed.keys, [String(next)]: randomBytes(32).toString('base64') } };
}

export async function readKeyMaterial(): Promise<string> {
  const c = config();
  if (c.tokenKeyFile) {
    const { readFile } = await import('node:fs/promises');
    return (await readFile(c.tokenKeyFile, 'utf8')).trim();
  }
  if (c.tokenKey) return c.tokenKey;
  if (c.tokenKeySecretArn) {
    // The secret as it is now (rotateKey adds to it): past the cache.
    const out = await secretMaterial(c.tokenKeySecretArn, c.region, c.keyringTtlSeconds, true);
    if (out) return out;
  }
  throw new Error('No token key configured (TOKEN_KEY, TOKEN_KEY_FILE or TOKEN_KEY_SECRET_ARN)');
}

type SecretsProvider = import('@aws-lambda-powertools/parameters/secrets').SecretsProvider;
let secrets: { region: string; provider: Promise<SecretsProvider> } | undefined;

/**
 * Deployed, the key is the Secrets Manager secret, read through Powertools Parameters: cached
 * `keyringTtlSeconds` per container (so every container seals with a rotated key within that time), read
 * again at once when `fresh` (after this container rotated, or met an unknown key version). Loaded on first
 * use (a dynamic import), so functions that never seal or open pay nothing at cold start; the SDK client is
 * ours, observed like every other (the deploy proof).
 */
async function secretMaterial(arn: string, region: string, ttlSeconds: number, fresh: boolean): Promise<string | undefined> {
  if (secrets?.region !== region) {
    secrets = {
      region,
      provider: Promise.all([import('@aws-lambda-powertools/parameters/secrets'), import('@aws-sdk/client-secrets-manager')]).then(
        ([{ SecretsProvider }, { SecretsManagerClient }]) =>
          new SecretsProvider({ awsSdkV3Client: observed(new SecretsManagerClient({ region })) }),
      ),
    };
  }
  const value = await (await secrets.provider).get(arn, { maxAge: ttlSeconds, forceFetch: fresh });
  return typeof value === 'string' ? value : undefined;
}

const toKeyring = (material: string): Keyring => {
  const parsed = parseKeyMaterial(material);
  return { current: parsed.current, keys: new Map(Object.entries(parsed.keys).map(([v, m]) => [Number(v), keyBytes(m)])) };
};

let keyringPromise: Promise<Keyring> | undefined;
let loadedAt = 0;
let loadedFrom = '';
/** The secret's keyring, kept while the secret's text (cached by Parameters) stays the same. */
let fromSecret: { material: string; ring: Keyring } | undefined;
let freshSecret = false;

/**
 * The keyring, reloaded after `keyringTtlSeconds` so that every container seals with a rotated key soon,
 * and at once when the configuration names another source. The source is read on every use, so the
 * deploy proof sees each function that needs the key, not only the one that loaded it. From the secret,
 * Parameters' cache keeps the time (secretMaterial); from a file or the environment, this one.
 */
export function keyring(): Promise<Keyring> {
  const c = config();
  if (!c.tokenKeyFile && !c.tokenKey && c.tokenKeySecretArn) {
    const fresh = freshSecret;
    freshSecret = false;
    return secretMaterial(c.tokenKeySecretArn, c.region, c.keyringTtlSeconds, fresh).then((material) => {
      if (!material) throw new Error('The token key secret has no text value');
      if (fromSecret?.material !== material) fromSecret = { material, ring: toKeyring(material) };
      return fromSecret.ring;
    });
  }
  const source = JSON.stringify([c.tokenKeyFile, c.tokenKey]);
  if (keyringPromise && (source !== loadedFrom || Date.now() - loadedAt > c.keyringTtlSeconds * 1000)) keyringPromise = undefined;
  if (!keyringPromise) {
    loadedAt = Date.now();
    loadedFrom = source;
    keyringPromise = readKeyMaterial()
      .then(toKeyring)
      .catch((e) => {
        keyringPromise = undefined;
        throw e;
      });
  }
  return keyringPromise;
}

/** Forgets the loaded keyring (after this process rotated the key, or on an unknown version). */
export const reloadKeyring = (): void => {
  keyringPromise = undefined;
  freshSecret = true;
};

/**
 * A key for one purpose, derived from the first key version, so that no two uses share key material.
 * Derived keys (signed links, pub-sub tokens) outlive rotation of the sealing key: rotation re-seals, it
 * cannot re-sign what clients already hold.
 */
export const derivedKey = async (purpose: string): Promise<Buffer> => {
  const ring = await keyring();
  const root = ring.keys.get(Math.min(...ring.keys.keys()))!;
  return createHmac('sha256', root).update(purpose, 'utf8').digest();
};

// `v1.` is the first format (key version 1 implied); `k<n>.` names its key version.
const SEALED = /^(v1|k[1-9]\d{0,5})\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]*)$/;

/** Whether a stored value is sealed (else it is a secret stored before sealing, in clear). */
export const isSealed = (value: string): boolean => SEALED.test(value);

/** The key version a sealed value names. */
export function sealedVersion(sealed: string): number | undefined {
  const m = SEALED.exec(sealed);
  return m ? (m[1] === 'v1' ? 1 : Number(m[1].slice(1))) : undefined;
}

export async function seal(plain: string): Promise<string> {
  const ring = await keyring();
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', ring.keys.get(ring.current)!, iv);
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return [`k${ring.current}`, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
}

export async function unseal(sealed: string): Promise<string> {
  const m = SEALED.exec(sealed);
  if (!m) throw new Error('Unknown sealed token format');
  const version = m[1] === 'v1' ? 1 : Number(m[1].slice(1));
  let key = (await keyring()).keys.get(version);
  if (!key) {
    // Sealed by a container that already loaded a newer key version.
    reloadKeyring();
    key = (await keyring()).keys.get(version);
  }
  if (!key) throw new Error(`Sealing key version ${version} is not available`);
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(m[2], 'base64url'));
  decipher.setAuthTag(Buffer.from(m[3], 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(m[4], 'base64url')), decipher.final()]).toString('utf8');
}

const scryptAsync = promisify(scrypt) as (p: string, s: Buffer, n: number) => Promise<Buffer>;

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const derived = await scryptAsync(password, salt, 32);
  return `scrypt.${salt.toString('base64url')}.${derived.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, salt, hash] = stored.split('.');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const derived = await scryptAsync(password, Buffer.from(salt, 'base64url'), 32);
  return timingSafeEqual(derived, Buffer.from(hash, 'base64url'));
}
