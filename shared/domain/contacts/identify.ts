import { findContactIdBy, getContact } from '#shared/db/repositories/contacts.ts';
import type { ContactRecord } from '#shared/model/contacts.ts';
import { mergeContacts } from './merge.ts';
import { updateContact } from './service.ts';

// Chatwoot's ContactIdentifyAction, shared by the public API's contact update and the widget's contact
// calls: what a client says about its contact. The identifier, then the email, then the phone number:
// when another contact of the account holds the value, this contact is folded into that one (it
// survives, with everything this one had), unless
//   - that contact has an identifier other than this contact's (the one sent, else the one it has;
//     Chatwoot looks at the sent one only, and so would fold two identified users together), or
//   - for the phone number, an email was sent and that contact has another email;
// then the value is left out of the update. Blank values change nothing; custom attributes merge deeply.

const isPlainObject = (x: unknown): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x);

/** Own data properties only (fromEntries), so a `__proto__` key stays a plain key. */
export function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const merged = Object.entries(over).map(([k, v]) => {
    const old = Object.hasOwn(base, k) ? base[k] : undefined;
    return [k, isPlainObject(old) && isPlainObject(v) ? deepMerge(old, v) : v];
  });
  return Object.fromEntries([...Object.entries(base), ...merged]);
}

export interface Identity {
  identifier?: string | null;
  name?: string | null;
  email?: string | null;
  phone_number?: string | null;
  avatar_url?: string | null;
  custom_attributes?: Record<string, unknown> | null;
}

const given = <T>(x: T | null | undefined) => (x === null || x === undefined || x === '' ? undefined : x);

export interface IdentifyOptions {
  /** Chatwoot's pre-chat form: a contact the visitor was folded into keeps its own name. */
  retainName?: boolean;
  /**
   * Only the identifier (which the caller proved with its hash) may fold this contact into another: an
   * email or phone number that another contact holds is left out, that contact untouched. For inboxes
   * that make the identity hash mandatory.
   */
  identifierOnly?: boolean;
}

/** The contact after identifying it: possibly another contact (the one it was merged into). */
export async function identifyContact(
  accountId: number,
  start: ContactRecord,
  input: Identity,
  opts: IdentifyOptions = {},
): Promise<ContactRecord> {
  let contact = start;
  const change = {
    identifier: given(input.identifier),
    name: given(input.name),
    email: given(input.email),
    phone_number: given(input.phone_number),
    avatar_url: given(input.avatar_url),
  };
  const identity = change.identifier ?? start.identifier ?? undefined;
  const sentEmail = change.email;
  let merged = false;
  for (const field of ['identifier', 'email', 'phone_number'] as const) {
    const value = change[field];
    if (!value) continue;
    const holder = await findContactIdBy(accountId, field, value);
    if (holder === undefined || holder === contact.id) continue;
    const other = await getContact(accountId, holder, true);
    if (!other) continue;
    const leaveOut =
      (field !== 'identifier' && opts.identifierOnly) ||
      (!!identity && !!other.identifier && other.identifier !== identity) ||
      (field === 'phone_number' && !!sentEmail && !!other.email && other.email !== sentEmail);
    if (leaveOut) {
      change[field] = undefined;
      continue;
    }
    contact = await mergeContacts(accountId, other.id, contact.id);
    merged = true;
  }
  if (merged && opts.retainName) change.name = undefined;
  const changes = Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined));
  const attributes = input.custom_attributes ? { custom_attributes: deepMerge(contact.custom_attributes, input.custom_attributes) } : {};
  if (!Object.keys(changes).length && !input.custom_attributes) return contact;
  return updateContact(accountId, contact.id, { ...changes, ...attributes });
}
