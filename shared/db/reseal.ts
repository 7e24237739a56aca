import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { checkpointedScan, setIfUnchanged } from './maintenance.ts';
import { config } from '#shared/config.ts';
import { db, tableName } from './client.ts';
import { log } from '#shared/log.ts';
import { isClearSecret, resealValue, SEALED_FIELDS } from '#shared/crypto/secret-fields.ts';
import { addKeyVersion, isSealed, keyring, readKeyMaterial, reloadKeyring, sealedVersion } from '#shared/crypto/tokens.ts';

// Moves every sealed value of the table onto the current key version, and seals the secrets stored in
// clear before sealing existed (the migration). One Scan, page by page; the position after each page is
// kept in a checkpoint item, so an interrupted run resumes where it stopped.

type Item = Record<string, unknown>;
type Path = string[];

export interface ResealProgress {
  /** The key version every sealed value is moved to. */
  version: number;
  scanned: number;
  resealed: number;
  /** False when `maxPages` stopped the scan early (run again to resume). */
  complete: boolean;
}

const isMap = (v: unknown): v is Item =>
  !!v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Uint8Array) && !(v instanceof Set);

/** Where `item` holds a value to (re)seal: sealed with another version, or a known secret still in clear. */
export function stalePaths(item: Item, current: number): Path[] {
  const out: Path[] = [];
  const walk = (v: unknown, path: Path) => {
    if (typeof v === 'string' && isSealed(v) && sealedVersion(v) !== current) out.push(path);
    else if (isMap(v)) for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
  };
  for (const [k, v] of Object.entries(item)) if (k !== 'pk' && k !== 'sk') walk(v, [k]);
  for (const path of SEALED_FIELDS[String(item.type)] ?? []) {
    const v = path.reduce<unknown>((o, k) => (isMap(o) ? o[k] : undefined), item);
    if (isClearSecret(v)) out.push([...path]);
  }
  return out;
}

const at = (item: Item, path: Path) => path.reduce<unknown>((o, k) => (isMap(o) ? o[k] : undefined), item);

/** Rewrites the stale values of one item, each only if it is still the value read (a concurrent write wins). */
async function resealItem(item: Item, current: number): Promise<boolean> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const paths = stalePaths(item, current);
    if (!paths.length) return attempt > 0;
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const sets: string[] = [];
    const conds: string[] = [];
    const nameOf = (k: string) => {
      const n = `#n${Object.keys(names).length}`;
      names[n] = k;
      return n;
    };
    for (const [i, path] of paths.entries()) {
      const old = at(item, path);
      const expr = path.map(nameOf).join('.');
      values[`:new${i}`] = await resealValue(old);
      values[`:old${i}`] = old;
      sets.push(`${expr} = :new${i}`);
      conds.push(`${expr} = :old${i}`);
    }
    if (await setIfUnchanged(item, { sets, conditions: conds, names, values })) return true;
    // Changed since the scan read it: read it again (gone: nothing to do).
    const fresh = await db().send(new GetCommand({ TableName: tableName(), Key: { pk: item.pk, sk: item.sk }, ConsistentRead: true }));
    if (!fresh.Item) return false;
    item = fresh.Item;
  }
  throw new Error(`could not re-seal ${String(item.pk)} / ${String(item.sk)}: it keeps changing`);
}

/**
 * Re-seals the whole table onto the current key version (and seals secrets stored in clear). Resumes
 * an interrupted run for the same version; `maxPages` bounds one call (a Lambda's time limit).
 */
export async function resealAll(opts: { pageSize?: number; maxPages?: number } = {}): Promise<ResealProgress> {
  reloadKeyring();
  const { current } = await keyring();
  const p = await checkpointedScan('reseal', async (item) => stalePaths(item, current).length > 0 && (await resealItem(item, current)), {
    ...opts,
    run: current,
  });
  log.info('re-seal progress', { version: current, scanned: p.scanned, resealed: p.changed, complete: p.complete });
  return { version: current, scanned: p.scanned, resealed: p.changed, complete: p.complete };
}

/**
 * Adds a key version and makes it current: locally in the key file of the data folder, deployed in the
 * Secrets Manager secret (JSON of versions). Every older version stays in the keyring, so what it sealed
 * still opens while (and after) the re-seal moves it on.
 */
export async function rotateKey(): Promise<number> {
  const c = config();
  const next = addKeyVersion(await readKeyMaterial());
  const text = JSON.stringify(next);
  if (c.tokenKeyFile) {
    const { rename, writeFile } = await import('node:fs/promises');
    // Written aside and renamed: a reader never sees half a key file.
    await writeFile(`${c.tokenKeyFile}.next`, text, { mode: 0o600 });
    await rename(`${c.tokenKeyFile}.next`, c.tokenKeyFile);
  } else if (c.tokenKeySecretArn) {
    const { SecretsManagerClient, PutSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
    await new SecretsManagerClient({ region: c.region }).send(
      new PutSecretValueCommand({ SecretId: c.tokenKeySecretArn, SecretString: text }),
    );
  } else {
    throw new Error('The key is given in TOKEN_KEY: rotate it where it is kept (TOKEN_KEY_FILE or TOKEN_KEY_SECRET_ARN)');
  }
  reloadKeyring();
  return next.current;
}
