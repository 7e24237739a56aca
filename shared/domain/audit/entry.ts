import { isSealed } from '#shared/crypto/tokens.ts';
import { AUDIT_ATTRIBUTES, AUDIT_BY, AUDIT_DELETE, AUDITED_TYPES, type AuditRecord, type AuditStamp } from '#shared/model/audit.ts';
import type { Change } from '#shared/model/change.ts';

// One change of an audited record → its audit entry (docs/audit.md), as the `audited` gem writes its row: `create`
// with the attributes set, `update` with each changed attribute's [before, after], `destroy` with the last
// attributes. Pure: the stream's audit stage (shared/events/audit.ts) stores what this answers.

/** Bookkeeping that is no attribute of the record (keys, index keys, version, timestamps moved by every save). */
const NOT_AUDITED = new Set(['pk', 'sk', 'type', 'ttl', 'version', 'updated_at', ...AUDIT_ATTRIBUTES]);
const isKeyAttribute = (k: string) => /^gsi\d+(pk|sk)$/.test(k);

/** Only these attributes of some types (Chatwoot audits an account user's role and availability, nothing it touches on sign-in). */
const ONLY: Record<string, string[]> = {
  account_user: ['user_id', 'role', 'availability', 'auto_offline', 'custom_role_id'],
};

/** Secrets stay sealed in the table; the log names that they changed, never their values. */
export const FILTERED = '[FILTERED]';
const shown = (v: unknown): unknown =>
  typeof v === 'string'
    ? isSealed(v)
      ? FILTERED
      : v
    : v && typeof v === 'object'
      ? JSON.parse(JSON.stringify(v, (_k, x) => (typeof x === 'string' && isSealed(x) ? FILTERED : x)))
      : v;

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

function attributes(type: string, image: Record<string, unknown>): string[] {
  const only = ONLY[type];
  return Object.keys(image).filter((k) => !NOT_AUDITED.has(k) && !isKeyAttribute(k) && (!only || only.includes(k)));
}

const stampOf = (v: unknown): AuditStamp => {
  const s = (v && typeof v === 'object' ? v : {}) as Partial<AuditStamp>;
  return { user_id: s.user_id ?? null, user_type: s.user_type ?? null, remote_address: s.remote_address ?? null };
};

/**
 * A number for the entry (Chatwoot's ids are integers): its second, then the low digits of the stream's sequence
 * number, so ids follow the log's order within a shard and the same change always gets the same one.
 */
export const auditId = (at: number, sequence: string) => at * 100_000 + Number(BigInt(/^\d+$/.test(sequence) ? sequence : '0') % 100_000n);

/**
 * The entry of a change, or none: a type that is not audited, an update that moved nothing audited (a stamp, a
 * timestamp), or a removal no request made (a purge's, which Chatwoot's cascade does not log either).
 */
export function auditEntryOf(change: Change, sequence: string): AuditRecord | undefined {
  const auditableType = AUDITED_TYPES[change.type];
  if (!auditableType) return undefined;
  const { newImage, oldImage } = change;
  let action: AuditRecord['action'];
  let image: Record<string, unknown>;
  let stamp: unknown;
  let audited: Record<string, unknown>;
  if (change.action === 'INSERT' && newImage) {
    action = 'create';
    image = newImage;
    stamp = newImage[AUDIT_BY];
    audited = Object.fromEntries(attributes(change.type, newImage).map((k) => [k, shown(newImage[k])]));
  } else if (change.action === 'MODIFY' && newImage && oldImage) {
    action = 'update';
    image = newImage;
    stamp = newImage[AUDIT_BY];
    const keys = [...new Set([...attributes(change.type, oldImage), ...attributes(change.type, newImage)])];
    audited = Object.fromEntries(
      // Compared as shown: a re-seal (key rotation, shared/db/reseal.ts) rewrites sealed values and changes nothing visible.
      keys
        .filter((k) => !same(shown(oldImage[k]), shown(newImage[k])))
        .map((k) => [k, [shown(oldImage[k] ?? null), shown(newImage[k] ?? null)]]),
    );
    if (!Object.keys(audited).length) return undefined;
  } else if (change.action === 'REMOVE' && oldImage?.[AUDIT_DELETE]) {
    action = 'destroy';
    image = oldImage;
    stamp = oldImage[AUDIT_DELETE];
    audited = Object.fromEntries(attributes(change.type, oldImage).map((k) => [k, shown(oldImage[k])]));
  } else return undefined;
  const accountId = Number(change.type === 'account' ? image.id : image.account_id);
  if (!Number.isSafeInteger(accountId)) return undefined;
  return {
    id: auditId(change.at, sequence),
    account_id: accountId,
    auditable_id: Number(image.id),
    auditable_type: auditableType,
    action,
    audited_changes: audited,
    ...stampOf(stamp),
    version: Number(image.version ?? 1),
    created_at: change.at,
  };
}
