import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { config } from '../config.ts';

// Access tokens: 192 random bits, base64url. Only their SHA-256 is a key in the table; where a record
// must show its token (user, agent bot), an AES-256-GCM sealed copy is kept on the record.

export const newToken = (): string => randomBytes(24).toString('base64url');

export const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** Opaque random identifiers (inbox identifiers, pubsub tokens, webhook secrets). */
export const randomId = (bytes = 16): string => randomBytes(bytes).toString('base64url');

let keyPromise: Promise<Buffer> | undefined;

async function loadKey(): Promise<Buffer> {
  const c = config();
  let material = c.tokenKey;
  if (!material && c.tokenKeySecretArn) {
    // Deployed: fetched once per container, and only by the functions that seal or open tokens.
    const { SecretsManagerClient, GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
    const sm = new SecretsManagerClient({ region: c.region });
    const out = await sm.send(new GetSecretValueCommand({ SecretId: c.tokenKeySecretArn }));
    material = out.SecretString;
  }
  if (!material) throw new Error('No token key configured (TOKEN_KEY or TOKEN_KEY_SECRET_ARN)');
  const key = /^[A-Za-z0-9+/=_-]{43,44}$/.test(material) ? Buffer.from(material, 'base64') : undefined;
  // A generated secret string is not base64 of 32 bytes: derive the key from it instead.
  return key?.length === 32 ? key : createHash('sha256').update(material, 'utf8').digest();
}

const tokenKey = () => (keyPromise ??= loadKey().catch((e) => ((keyPromise = undefined), Promise.reject(e))));

/** A key for one purpose, derived from the token key, so that no two uses share key material. */
export const derivedKey = async (purpose: string): Promise<Buffer> => createHmac('sha256', await tokenKey()).update(purpose, 'utf8').digest();

export async function seal(plain: string): Promise<string> {
  const key = await tokenKey();
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
}

export async function unseal(sealed: string): Promise<string> {
  const [version, iv, tag, data] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('Unknown sealed token format');
  const decipher = createDecipheriv('aes-256-gcm', await tokenKey(), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
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
