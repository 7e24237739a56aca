import { randomUUID } from 'node:crypto';
import { locatedPubsubToken, randomId } from '../../crypto/tokens.ts';
import { nextId } from '../../db/ids.ts';
import * as repo from '../../db/repositories/contacts.ts';
import { getInbox, getInboxes, listInboxes } from '../../db/repositories/inboxes.ts';
import type { Actor } from '../../model/actor.ts';
import type { FilePart } from '../../model/uploads.ts';
import { putObject } from '../../storage/objects.ts';
import { storedRef } from '../../storage/file-urls.ts';
import { invalidField, notFound } from '../../errors.ts';
import { mergeableByKey, retryStale, type AttributeChanges } from '../../db/repositories/versioned.ts';
import { inboxScope, visibleInbox } from '../inboxes/access.ts';
import type { InboxRecord } from '../../model/inboxes.ts';
import { now } from '../../model/identity.ts';
import type { ContactInboxRecord, ContactRecord } from '../../model/contacts.ts';
import { SORTS, type ContactUpdate, type DestroyCustomAttributes, type NewContact, type NewContactInbox, type SortField } from './schemas.ts';
import { contactInboxesJson, contactJson, inboxRowJson, inboxSlimJson } from './view.ts';

const PAGE_SIZE = 15;

// ── records ─────────────────────────────────────────────────────────────────────────────────────

/** What Chatwoot recomputes on every save: location/country code from the attributes, visitor → lead. */
function withDerived(c: ContactRecord): ContactRecord {
  const a = c.additional_attributes;
  const social = Object.entries(a).some(([k, v]) => k.startsWith('social_') && v !== null && v !== '' && v !== undefined);
  return {
    ...c,
    location: typeof a.city === 'string' ? a.city : c.location,
    country_code: typeof a.country === 'string' ? a.country : c.country_code,
    contact_type: c.contact_type === 'visitor' && (c.email || c.phone_number || social) ? 'lead' : c.contact_type,
  };
}

/**
 * Applies a change to a contact. When `onAttributes` can express it as changes of single attributes
 * (nothing unique or derived moves), they are applied on the stored item, so concurrent changes never
 * conflict; otherwise under optimistic concurrency: re-reads and retries (with jitter, for as long as
 * other writers keep winning) when another writer got there first. `mutate` returning the same record
 * means nothing to write.
 */
async function changeContact(
  accountId: number,
  contactId: number,
  mutate: (c: ContactRecord) => ContactRecord,
  onAttributes?: (before: ContactRecord, after: ContactRecord) => AttributeChanges | undefined,
): Promise<ContactRecord> {
  return retryStale(async (consistent) => {
    const before = await repo.getContact(accountId, contactId, consistent);
    if (!before) throw notFound('Contact');
    const changed = withDerived(mutate(before));
    if (sameContact(before, changed)) return before;
    const changes = onAttributes?.(before, changed);
    if (changes) {
      const saved = await repo.changeContactAttributes(before, changes);
      if (!saved) throw notFound('Contact');
      return saved;
    }
    const after = { ...changed, updated_at: now(), version: before.version + 1 };
    await repo.saveContact(before, after);
    return after;
  });
}

/** Changes that touch neither a uniqueness sentinel nor the derived contact type. */
const plainChange = (before: ContactRecord, after: ContactRecord) =>
  repo.UNIQUE_FIELDS.every((f) => before[f] === after[f]) && before.contact_type === after.contact_type;

const sameContact = (a: ContactRecord, b: ContactRecord) =>
  JSON.stringify({ ...a, updated_at: 0, version: 0 }) === JSON.stringify({ ...b, updated_at: 0, version: 0 });

/** Stores an uploaded avatar under a fresh key (a new upload never serves a cached old image). */
async function storeAvatar(accountId: number, contactId: number, file: FilePart): Promise<string> {
  const key = `avatars/contacts/${accountId}/${contactId}/${randomId(12)}.${file.content_type.split('/')[1]}`;
  await putObject(key, file.data, file.content_type);
  return storedRef(key);
}

/**
 * A new contact, with a contact inbox when `inbox` is given, in one transaction. `hmacVerified`: the
 * public interface has checked the contact's identity hash for that contact inbox.
 */
export async function createContact(
  accountId: number,
  input: NewContact,
  inbox?: InboxRecord,
  opts: { hmacVerified?: boolean } = {},
): Promise<{ contact: ContactRecord; contactInbox?: ContactInboxRecord }> {
  const t = now();
  const id = await nextId('contact');
  const contact = withDerived({
    id,
    account_id: accountId,
    name: input.name ?? '',
    email: input.email ?? null,
    phone_number: input.phone_number ?? null,
    identifier: input.identifier ?? null,
    thumbnail: input.avatar ? await storeAvatar(accountId, id, input.avatar) : (input.avatar_url ?? ''),
    additional_attributes: input.additional_attributes ?? {},
    custom_attributes: input.custom_attributes ?? {},
    labels: [],
    last_activity_at: null,
    contact_type: 'visitor',
    blocked: input.blocked ?? false,
    location: null,
    country_code: null,
    created_at: t,
    updated_at: t,
    version: 1,
  });
  const plan = inbox ? await planContactInbox(contact, inbox, input.source_id ?? undefined, opts.hmacVerified ?? false) : undefined;
  await repo.saveContact(undefined, contact, plan?.write);
  return { contact, contactInbox: plan?.record };
}

/**
 * Update: given fields replace, attribute hashes merge their top-level keys
 * (docs/chatwoot.md#creating-and-updating-a-contact).
 */
export async function updateContact(accountId: number, contactId: number, input: ContactUpdate): Promise<ContactRecord> {
  let uploaded: string | undefined;
  if (input.avatar) {
    if (!(await repo.getContact(accountId, contactId))) throw notFound('Contact');
    uploaded = await storeAvatar(accountId, contactId, input.avatar);
  }
  const thumbnail = uploaded ?? (input.avatar_url !== undefined ? (input.avatar_url ?? '') : undefined);
  const additional = input.additional_attributes ?? {};
  // Chatwoot replaces the given fields and merges the two attribute hashes key by key.
  const onAttributes = (before: ContactRecord, after: ContactRecord): AttributeChanges | undefined =>
    plainChange(before, after) && mergeableByKey(additional) && mergeableByKey(input.custom_attributes ?? {})
      ? {
          set: {
            name: input.name !== undefined ? (input.name ?? '') : undefined,
            blocked: input.blocked ?? undefined,
            thumbnail,
            location: typeof additional.city === 'string' ? additional.city : undefined,
            country_code: typeof additional.country === 'string' ? additional.country : undefined,
            updated_at: now(),
          },
          merge: { additional_attributes: additional, custom_attributes: input.custom_attributes ?? {} },
        }
      : undefined;
  return changeContact(accountId, contactId, (c) => ({
    ...c,
    name: input.name !== undefined ? (input.name ?? '') : c.name,
    email: input.email !== undefined ? input.email : c.email,
    phone_number: input.phone_number !== undefined ? input.phone_number : c.phone_number,
    identifier: input.identifier !== undefined ? input.identifier : c.identifier,
    blocked: input.blocked ?? c.blocked,
    thumbnail: uploaded ?? (input.avatar_url !== undefined ? (input.avatar_url ?? '') : c.thumbnail),
    additional_attributes: input.additional_attributes ? { ...c.additional_attributes, ...input.additional_attributes } : c.additional_attributes,
    custom_attributes: input.custom_attributes ? { ...c.custom_attributes, ...input.custom_attributes } : c.custom_attributes,
  }), onAttributes);
}

/** For other areas: an incoming message makes the contact active (Chatwoot then announces contact_updated). */
export const touchLastActivity = (accountId: number, contactId: number, at = now()) =>
  changeContact(accountId, contactId, (c) => ({ ...c, last_activity_at: at }), () => ({ set: { last_activity_at: at, updated_at: now() } }));

// ── contact inboxes ─────────────────────────────────────────────────────────────────────────────

// Inboxes whose source id is the contact's address: when the address changes hands, the new contact
// takes the source id over and the old row is renamed (Chatwoot's ContactInboxBuilder).
const ADDRESS_CHANNELS = new Set(['Channel::Email', 'Channel::Sms', 'Channel::Whatsapp']);

function generateSourceId(contact: ContactRecord, inbox: InboxRecord): string {
  const missing = (what: string) =>
    invalidField('source_id', `cannot be generated: the contact has no ${what}`, 'required');
  switch (inbox.channel_type) {
    case 'Channel::Api':
    case 'Channel::WebWidget':
      return randomUUID();
    case 'Channel::Email':
      if (!contact.email) throw missing('email');
      return contact.email;
    case 'Channel::Sms':
      if (!contact.phone_number) throw missing('phone number');
      return contact.phone_number;
    case 'Channel::Whatsapp':
      if (!contact.phone_number) throw missing('phone number');
      return contact.phone_number.replace(/^\+/, '');
    default:
      throw invalidField('source_id', `is required for ${inbox.channel_type} inboxes`, 'required');
  }
}

/** The contact inbox to use, and whether to write it (not when the contact already has this source id in the inbox). */
type Plan = { record: ContactInboxRecord; write?: repo.ContactInboxWrite };

async function planContactInbox(contact: ContactRecord, inbox: InboxRecord, sourceId: string | undefined, hmacVerified: boolean): Promise<Plan> {
  const source = sourceId ?? generateSourceId(contact, inbox);
  const existing = await repo.findContactInbox(inbox.id, source);
  if (existing?.contact_id === contact.id) return { record: existing };
  const t = now();
  const record: ContactInboxRecord = {
    id: await nextId('contact_inbox'),
    account_id: contact.account_id,
    contact_id: contact.id,
    inbox_id: inbox.id,
    source_id: source,
    pubsub_token: locatedPubsubToken(contact.account_id, contact.id, inbox.id),
    hmac_verified: hmacVerified,
    created_at: t,
    updated_at: t,
  };
  if (!existing) return { record, write: { record } };
  // An address that changed hands moves; so does a source id left by a contact deleted while its contact
  // inbox was being written (repo.writeContactInbox is not a transaction with a check of the contact).
  if (ADDRESS_CHANNELS.has(inbox.channel_type) || !(await repo.getContact(existing.account_id, existing.contact_id))) {
    return { record, write: { record, takeOver: { from: existing, renamedSourceId: `${source}:${randomUUID()}` } } };
  }
  throw invalidField('source_id', 'has already been taken', 'taken');
}

async function attachInbox(contact: ContactRecord, inbox: InboxRecord, sourceId: string | undefined, hmacVerified: boolean) {
  const plan = await planContactInbox(contact, inbox, sourceId, hmacVerified);
  const takeOver = plan.write?.takeOver;
  if (!plan.write) return plan.record;
  // A plain new contact inbox is two plain writes (repo.writeContactInbox says what a crash leaves);
  // taking a source id over from another contact stays one transaction.
  if (!takeOver) return repo.writeContactInbox(plan.record);
  try {
    await repo.takeOverSourceId({ record: plan.record, takeOver });
  } catch (err) {
    if (err instanceof repo.StaleContact) throw notFound('Contact');
    throw err;
  }
  return plan.record;
}

/**
 * The contact's contact inbox for a source id in an inbox, created when absent. Without a source id one is generated
 * per channel (docs/chatwoot.md#contact-inboxes-and-source-ids): a UUID for API and web widget inboxes, the contact's
 * email for email inboxes, its phone for SMS (WhatsApp: without `+`); other channels need one (422).
 */
export async function ensureContactInbox(
  accountId: number,
  contactId: number,
  inboxId: number,
  sourceId?: string,
  opts: { hmacVerified?: boolean } = {},
): Promise<ContactInboxRecord> {
  const [contact, inbox] = await Promise.all([repo.getContact(accountId, contactId), getInbox(accountId, inboxId)]);
  if (!contact) throw notFound('Contact');
  if (!inbox) throw notFound('Inbox');
  return attachInbox(contact, inbox, sourceId, opts.hmacVerified ?? false);
}

/** `ensureContactInbox` for a caller that already read the contact and the inbox (no second read). */
export const ensureContactInboxOf = (contact: ContactRecord, inbox: InboxRecord, sourceId?: string, opts: { hmacVerified?: boolean } = {}) =>
  attachInbox(contact, inbox, sourceId, opts.hmacVerified ?? false);

/** The public interface's identity check (HMAC) passed for this contact inbox; 404 once it is gone. */
export async function markContactInboxVerified(ci: ContactInboxRecord): Promise<ContactInboxRecord> {
  if (ci.hmac_verified) return ci;
  const after = { ...ci, hmac_verified: true, updated_at: now() };
  if (!(await repo.setContactInboxVerified(after))) throw notFound('Contact');
  return after;
}

async function inboxesById(accountId: number, ids: number[]): Promise<Map<number, InboxRecord>> {
  const distinct = [...new Set(ids)];
  if (!distinct.length) return new Map();
  const found = await getInboxes(accountId, distinct);
  return new Map(found.filter((i): i is InboxRecord => !!i).map((i) => [i.id, i]));
}

async function withInboxesJson(c: ContactRecord, cis: ContactInboxRecord[]) {
  return { ...contactJson(c), contact_inboxes: contactInboxesJson(cis, await inboxesById(c.account_id, cis.map((ci) => ci.inbox_id))) };
}

// ── routes ──────────────────────────────────────────────────────────────────────────────────────

type Query = Record<string, string | undefined>;

/** `include_contact_inboxes` defaults to true; when given, only the literal `true` keeps it. */
export const includeInboxes = (q: Query) => q.include_contact_inboxes === undefined || q.include_contact_inboxes === 'true';

/** Kaminari's reading of `page`: anything but a positive integer is page 1. */
const pageNumber = (raw: string | undefined) => (raw && /^\d+$/.test(raw) && Number(raw) > 0 ? Number(raw) : 1);

function sortOf(raw: string | undefined): { field: SortField; desc: boolean } | undefined {
  if (!raw) return undefined;
  const desc = raw.startsWith('-');
  const field = desc ? raw.slice(1) : raw;
  if (!(SORTS as readonly string[]).includes(field)) {
    throw invalidField('sort', `must be one of ${SORTS.join(', ')} (prefix - for descending)`);
  }
  return { field: field as SortField, desc };
}

const SORT_VALUE: Record<SortField, (l: repo.ContactListing) => string | number | null> = {
  name: (l) => (l.name ? l.name.toLowerCase() : null),
  email: (l) => l.email,
  phone_number: (l) => l.phone_number,
  last_activity_at: (l) => l.last_activity_at,
  created_at: (l) => l.created_at,
  company: (l) => l.company?.toLowerCase() ?? null,
  city: (l) => l.city?.toLowerCase() ?? null,
  country: (l) => l.country?.toLowerCase() ?? null,
};

/** Nulls last in both directions; ties in id order so that pages never overlap. */
function comparator(sort: { field: SortField; desc: boolean }) {
  const value = SORT_VALUE[sort.field];
  return (a: repo.ContactListing, b: repo.ContactListing) => {
    const [x, y] = [value(a), value(b)];
    if (x !== y) {
      if (x === null) return 1;
      if (y === null) return -1;
      return (x < y ? -1 : 1) * (sort.desc ? -1 : 1);
    }
    return a.id - b.id;
  };
}

/** `labels[]=a&labels[]=b` (joined with commas by the gateway) or `labels=a`; any-of, ignoring case. */
function labelFilter(q: Query) {
  const raw = [q['labels[]'], q.labels].filter((s): s is string => !!s).join(',');
  const wanted = new Set(raw.split(',').map((l) => l.trim().toLowerCase()).filter(Boolean));
  return wanted.size ? (l: repo.ContactListing) => l.labels.some((x) => wanted.has(x.toLowerCase())) : undefined;
}

/**
 * One page of listed contacts: reads the account's listing projection (AP46), filters, sorts and
 * counts in memory, then reads the page's 15 contacts (with their contact inboxes unless turned off).
 */
async function contactPage(accountId: number, q: Query, match?: (l: repo.ContactListing) => boolean) {
  const sort = sortOf(q.sort);
  const byLabel = labelFilter(q);
  let rows = await repo.listContactListings(accountId);
  if (byLabel) rows = rows.filter(byLabel);
  if (match) rows = rows.filter(match);
  if (sort) rows.sort(comparator(sort));
  const page = pageNumber(q.page);
  const ids = rows.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE).map((r) => r.id);
  return { meta: { count: rows.length, current_page: q.page ?? 1 }, payload: await contactsJson(accountId, ids, includeInboxes(q)) };
}

export async function contactsJson(accountId: number, ids: number[], withInboxes: boolean) {
  if (!withInboxes) {
    return (await repo.getContacts(accountId, ids)).filter((c): c is ContactRecord => !!c).map(contactJson);
  }
  const parts = (await Promise.all(ids.map((id) => repo.getContactWithInboxes(accountId, id)))).filter((p) => p.contact);
  const inboxes = await inboxesById(accountId, parts.flatMap((p) => p.inboxes.map((ci) => ci.inbox_id)));
  return parts.map((p) => ({ ...contactJson(p.contact!), contact_inboxes: contactInboxesJson(p.inboxes, inboxes) }));
}

export const listContacts = (accountId: number, q: Query) => contactPage(accountId, q);

/** Substring match as Chatwoot's ILIKE: case-insensitive on name, email, phone and company; identifier case-sensitive. */
export function searchContacts(accountId: number, q: Query) {
  const term = q.q?.trim();
  if (!term) throw invalidField('q', 'Specify search string with parameter q', 'required');
  const lower = term.toLowerCase();
  const has = (s: string | null) => !!s && s.toLowerCase().includes(lower);
  return contactPage(
    accountId,
    q,
    (l) => has(l.name) || has(l.email) || has(l.phone_number) || has(l.company) || (!!l.identifier && l.identifier.includes(term)),
  );
}

export async function showContact(accountId: number, contactId: number, q: Query) {
  const { contact, inboxes } = await repo.getContactWithInboxes(accountId, contactId);
  if (!contact) throw notFound('Contact');
  return { payload: includeInboxes(q) ? await withInboxesJson(contact, inboxes) : contactJson(contact) };
}

/** `POST /contacts`: `inbox_id` must name an inbox the caller can see (else 404, nothing created). */
export async function createContactPayload(accountId: number, actor: Actor, input: NewContact) {
  const inbox = input.inbox_id != null ? await visibleInbox(accountId, actor, input.inbox_id) : undefined;
  const { contact, contactInbox } = await createContact(accountId, input, inbox);
  const cis = contactInbox ? [contactInbox] : [];
  return {
    payload: {
      contact: { ...contactJson(contact), contact_inboxes: inbox ? contactInboxesJson(cis, new Map([[inbox.id, inbox]])) : [] },
      contact_inbox: { inbox: inbox ? inboxRowJson(inbox) : null, source_id: contactInbox?.source_id ?? null },
    },
  };
}

async function payloadWithInboxes(c: ContactRecord) {
  return { payload: await withInboxesJson(c, await repo.listContactInboxes(c.account_id, c.id)) };
}

export async function updateContactPayload(accountId: number, contactId: number, input: ContactUpdate) {
  return payloadWithInboxes(await updateContact(accountId, contactId, input));
}

/** Removes the contact, its contact inboxes and the uniqueness of its email, phone and identifier. */
export async function deleteContact(accountId: number, contactId: number): Promise<void> {
  await retryStale(async () => {
    const { contact, inboxes } = await repo.getContactWithInboxes(accountId, contactId);
    if (!contact) throw notFound('Contact');
    await repo.deleteContactItems(contact, inboxes);
  });
}

export async function contactLabels(accountId: number, contactId: number) {
  const contact = await repo.getContact(accountId, contactId);
  if (!contact) throw notFound('Contact');
  return { payload: contact.labels };
}

/**
 * Contract endpoint 5 and rule 1 (docs/contract.md#endpoints, docs/contract.md#rules): the submitted list replaces
 * the contact's labels.
 */
export async function replaceContactLabels(accountId: number, contactId: number, labels: string[] | null | undefined) {
  const contact = await changeContact(accountId, contactId, (c) => ({ ...c, labels: labels ?? [] }), () => ({ set: { labels: labels ?? [], updated_at: now() } }));
  return { payload: contact.labels };
}

export async function destroyCustomAttributes(accountId: number, contactId: number, input: DestroyCustomAttributes) {
  const drop = new Set(input.custom_attributes ?? []);
  const contact = await changeContact(accountId, contactId, (c) => ({
    ...c,
    custom_attributes: Object.fromEntries(Object.entries(c.custom_attributes).filter(([k]) => !drop.has(k))),
  }));
  return payloadWithInboxes(contact);
}

export async function removeAvatar(accountId: number, contactId: number) {
  return payloadWithInboxes(await changeContact(accountId, contactId, (c) => ({ ...c, thumbnail: '' }), () => ({ set: { thumbnail: '', updated_at: now() } })));
}

/** `POST /contacts/{id}/contact_inboxes`: the caller must see the inbox. */
export async function createContactInboxPayload(accountId: number, actor: Actor, contactId: number, input: NewContactInbox) {
  const contact = await repo.getContact(accountId, contactId);
  if (!contact) throw notFound('Contact');
  const inbox = await visibleInbox(accountId, actor, input.inbox_id);
  const ci = await attachInbox(contact, inbox, input.source_id ?? undefined, input.hmac_verified ?? false);
  return { source_id: ci.source_id, inbox: inboxSlimJson(inbox) };
}

/**
 * Inboxes the caller can see through which the contact could be reached, with the source id to use
 * (Chatwoot's ContactableInboxesService): API → its latest source id there or a fresh UUID; web widget →
 * only where it has a contact inbox; email → its email; SMS → its phone; WhatsApp → its phone without `+`.
 */
export async function contactableInboxes(accountId: number, actor: Actor, contactId: number) {
  const [{ contact, inboxes: cis }, scope, all] = await Promise.all([
    repo.getContactWithInboxes(accountId, contactId),
    inboxScope(accountId, actor),
    listInboxes(accountId),
  ]);
  if (!contact) throw notFound('Contact');
  const latest = (inboxId: number) =>
    cis.filter((ci) => ci.inbox_id === inboxId).sort((a, b) => b.created_at - a.created_at || b.id - a.id)[0]?.source_id;
  const sourceFor = (inbox: InboxRecord): string | undefined => {
    switch (inbox.channel_type) {
      case 'Channel::Api':
        return latest(inbox.id) ?? randomUUID();
      case 'Channel::WebWidget':
        return latest(inbox.id);
      case 'Channel::Email':
        return contact.email ?? undefined;
      case 'Channel::Sms':
        return contact.phone_number ?? undefined;
      case 'Channel::Whatsapp':
        return contact.phone_number?.replace(/^\+/, '');
      default:
        return undefined;
    }
  };
  const payload = all
    .filter((inbox) => scope === 'all' || scope.has(inbox.id))
    .flatMap((inbox) => {
      const source_id = sourceFor(inbox);
      return source_id === undefined ? [] : [{ source_id, inbox: inboxSlimJson(inbox) }];
    });
  return { payload };
}
