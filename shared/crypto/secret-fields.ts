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
  ],
};

type Transform = (value: string) => Promise<string>;

async function mapPaths<T>(rec: T, paths: readonly (readonly string[])[], f: Transform): Promise<T> {
  if (!rec || typeof rec !== 'object') return rec;
  let out = rec as Record<string, unknown>;
  for (const path of paths) {
    const [head, leaf] = path;
    if (leaf === undefined) {
      const v = out[head];
      if (typeof v === 'string' && v) out = { ...out, [head]: await f(v) };
      continue;
    }
    const map = out[head];
    if (!map || typeof map !== 'object' || Array.isArray(map)) continue;
    const v = (map as Record<string, unknown>)[leaf];
    if (typeof v === 'string' && v) out = { ...out, [head]: { ...(map as Record<string, unknown>), [leaf]: await f(v) } };
  }
  return out as T;
}

/** Seals the kind's secret fields that are still in clear (a copy; sealed ones are kept as they are). */
export const sealFields = <T>(kind: keyof typeof SEALED_FIELDS, rec: T): Promise<T> =>
  mapPaths(rec, SEALED_FIELDS[kind], async (v) => (isSealed(v) ? v : seal(v)));

/** Opens the kind's sealed fields; a value stored in clear before sealing existed is read as it is. */
export const openFields = <T>(kind: keyof typeof SEALED_FIELDS, rec: T): Promise<T> =>
  mapPaths(rec, SEALED_FIELDS[kind], async (v) => (isSealed(v) ? unseal(v) : v));

export const openAll = <T>(kind: keyof typeof SEALED_FIELDS, recs: T[]): Promise<T[]> => Promise.all(recs.map((r) => openFields(kind, r)));
