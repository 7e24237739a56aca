import { isSealed, seal, unseal } from './tokens.ts';

/**
 * Secrets the service must show or use again (so they cannot be hashed), sealed at rest with the token
 * key: a table read (a backup, an export, a stream consumer) reveals none of them. Paths are into the
 * stored record; a nested path names a field of a map attribute.
 */
export const SEALED_FIELDS: Record<string, readonly (readonly string[])[]> = {
  webhook: [['secret']],
  inbox: [
    ['hmac_token'],
    ['line_channel_secret'],
    ['line_channel_token'],
    ['bot_token'],
    ['email_settings', 'imap_password'],
    ['email_settings', 'smtp_password'],
    ['provider_config', 'api_key'],
    // Channels (docs/channels.md): WhatsApp's verify token, Bandwidth's API secret, Twilio's auth token.
    ['provider_config', 'webhook_verify_token'],
    ['provider_config', 'api_secret'],
    ['provider_config', 'webhook_password'],
    ['auth_token'],
    // Facebook pages: the page's and the user's access tokens.
    ['page_access_token'],
    ['user_access_token'],
    // Instagram-login inboxes: the long-lived Instagram token.
    ['access_token'],
  ],
  // Integration hooks: API keys and tokens (Notion's `token`; `access_token`, where Chatwoot keeps an OAuth
  // app's token, for a client that stores it in the settings), and service-account credentials (an
  // object, sealed as its JSON).
  integration_hook: [
    ['settings', 'api_key'],
    ['settings', 'api_token'],
    ['settings', 'token'],
    ['settings', 'access_token'],
    ['settings', 'credentials'],
  ],
};

/** A value kept as text inside its seal: strings as they are, objects as JSON behind a mark. */
const JSON_MARK = '\u0000json:';
const toText = (v: unknown) => (typeof v === 'string' ? v : `${JSON_MARK}${JSON.stringify(v)}`);
const fromText = (s: string): unknown => (s.startsWith(JSON_MARK) ? JSON.parse(s.slice(JSON_MARK.length)) : s);

/** A secret field's value still in clear: a non-empty string, or an object (credentials). */
export const isClearSecret = (v: unknown): boolean =>
  (typeof v === 'string' && v !== '' && !isSealed(v)) || (!!v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Uint8Array));

/** The value sealed with the current key version (a sealed value is opened first). */
export const resealValue = async (v: unknown): Promise<string> => seal(typeof v === 'string' && isSealed(v) ? await unseal(v) : toText(v));

type Transform = (value: unknown) => Promise<unknown>;

async function mapPaths<T>(rec: T, paths: readonly (readonly string[])[], f: Transform): Promise<T> {
  if (!rec || typeof rec !== 'object') return rec;
  let out = rec as Record<string, unknown>;
  for (const path of paths) {
    const [head, leaf] = path;
    if (leaf === undefined) {
      const v = out[head];
      if (v !== undefined && v !== null && v !== '') out = { ...out, [head]: await f(v) };
      continue;
    }
    const map = out[head];
    if (!map || typeof map !== 'object' || Array.isArray(map)) continue;
    const v = (map as Record<string, unknown>)[leaf];
    if (v !== undefined && v !== null && v !== '') out = { ...out, [head]: { ...(map as Record<string, unknown>), [leaf]: await f(v) } };
  }
  return out as T;
}

/** Seals the kind's secret fields that are still in clear (a copy; sealed ones are kept as they are). */
export const sealFields = <T>(kind: keyof typeof SEALED_FIELDS, rec: T): Promise<T> =>
  mapPaths(rec, SEALED_FIELDS[kind], async (v) => (isClearSecret(v) ? seal(toText(v)) : v));

/** Opens the kind's sealed fields; a value stored in clear before sealing existed is read as it is. */
export const openFields = <T>(kind: keyof typeof SEALED_FIELDS, rec: T): Promise<T> =>
  mapPaths(rec, SEALED_FIELDS[kind], async (v) => (typeof v === 'string' && isSealed(v) ? fromText(await unseal(v)) : v));

export const openAll = <T>(kind: keyof typeof SEALED_FIELDS, recs: T[]): Promise<T[]> => Promise.all(recs.map((r) => openFields(kind, r)));
