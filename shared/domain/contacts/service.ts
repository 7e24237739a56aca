import { randomId } from '#shared/crypto/tokens.ts';
import { nextId } from '#shared/db/ids.ts';
import * as repo from '#shared/db/repositories/contacts.ts';
import { deleteContactNotes } from '#shared/db/repositories/contact-notes.ts';
import { companyLinkItems, findCompanyIdByDomain, unlinkCompanyContact } from '#shared/db/repositories/companies.ts';
import { businessDomainOf } from '../companies/domains.ts';
import type { Actor } from '#shared/model/actor.ts';
import type { FilePart } from '#shared/model/uploads.ts';
import { putObject } from '#shared/storage/objects.ts';
import { storedRef } from '#shared/storage/file-urls.ts';
import { notFound } from '#shared/errors.ts';
import { mergeableByKey, retryStale, StaleWrite, type AttributeChanges } from '#shared/db/repositories/versioned.ts';
import type { TxItem } from '#shared/db/transact.ts';
import { visibleInbox } from '../inboxes/access.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import { now } from '#shared/model/time.ts';
import type { ContactInboxRecord, ContactRecord } from '#shared/model/contacts.ts';
import type { ContactUpdate, DestroyCustomAttributes, NewContact } from './schemas.ts';
import { contactInboxesJson, contactJson, inboxRowJson } from './view.ts';

import { includeInboxes, type Query } from './listing.ts';
import { planContactInbox, withInboxesJson } from './contact-inboxes.ts';

// Contacts: their records (create, update, delete, labels, attributes, avatar) and the routes that show them.

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
  /** The company of the new email's business domain, for a contact that gets its first email (linkOnFirstEmail). */
  company?: number,
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
    if (company !== undefined && linkOnFirstEmail(before, after)) {
      // Linked and counted in the contact's own transaction; a company deleted meanwhile leaves the contact unlinked.
      const linked = { ...after, company_id: company };
      try {
        await repo.saveContact(before, linked, undefined, companyLinkItems(accountId, company, contactId));
        return linked;
      } catch (err) {
        if (!(err instanceof StaleWrite) || err instanceof repo.StaleContact) throw err;
      }
    }
    await repo.saveContact(before, after);
    return after;
  });
}

/**
 * Chatwoot's Contact callback (`should_associate_company?`): a contact without a company that gets an email where it
 * had none is linked to the company of the email's business domain; a changed email, or one set at creation's
 * company already decided, moves nothing (docs/chatwoot.md#companies).
 */
const linkOnFirstEmail = (before: ContactRecord, after: ContactRecord) =>
  !before.email && !!after.email && before.company_id == null && after.company_id == null;

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
 * public interface has checked the contact's identity hash for that contact inbox. `extra`: items of the data
 * layer written in the same transaction (an import's row mark).
 */
export async function createContact(
  accountId: number,
  input: NewContact,
  inbox?: InboxRecord,
  opts: { hmacVerified?: boolean; extra?: TxItem[] } = {},
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
  const domain = businessDomainOf(contact.email);
  const [plan, companyId] = await Promise.all([
    inbox ? planContactInbox(contact, inbox, input.source_id ?? undefined, opts.hmacVerified ?? false) : undefined,
    domain ? findCompanyIdByDomain(accountId, domain) : undefined,
  ]);
  if (companyId !== undefined) {
    // Linked and counted in the contact's own transaction; a company deleted meanwhile leaves the contact unlinked.
    const linked = { ...contact, company_id: companyId };
    try {
      await repo.saveContact(undefined, linked, plan?.write, [...companyLinkItems(accountId, companyId, id), ...(opts.extra ?? [])]);
      return { contact: linked, contactInbox: plan?.record };
    } catch (err) {
      if (!(err instanceof StaleWrite) || err instanceof repo.StaleContact) throw err;
    }
  }
  await repo.saveContact(undefined, contact, plan?.write, opts.extra);
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
  const thumbnail = uploaded ?? (input.avatar_url !== undefined ? (input.avatar_url ?? '') : input.avatar === null ? '' : undefined);
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
  // Only an email with a business domain can link the contact to a company (one read of the domain's sentinel).
  const domain = input.email ? businessDomainOf(input.email) : null;
  const company = domain ? await findCompanyIdByDomain(accountId, domain) : undefined;
  return changeContact(
    accountId,
    contactId,
    (c) => ({
      ...c,
      name: input.name !== undefined ? (input.name ?? '') : c.name,
      email: input.email !== undefined ? input.email : c.email,
      phone_number: input.phone_number !== undefined ? input.phone_number : c.phone_number,
      identifier: input.identifier !== undefined ? input.identifier : c.identifier,
      blocked: input.blocked ?? c.blocked,
      thumbnail: thumbnail ?? c.thumbnail,
      additional_attributes: input.additional_attributes
        ? { ...c.additional_attributes, ...input.additional_attributes }
        : c.additional_attributes,
      custom_attributes: input.custom_attributes ? { ...c.custom_attributes, ...input.custom_attributes } : c.custom_attributes,
    }),
    onAttributes,
    company,
  );
}

/**
 * Fields of a contact that no uniqueness or company link depends on, set in one update (the repository keeps the
 * contact's listing in step).
 */
const setPlainFields = (accountId: number, contactId: number, fields: Partial<Pick<ContactRecord, 'last_activity_at' | 'blocked'>>) =>
  retryStale(async (consistent) => {
    const before = await repo.getContact(accountId, contactId, consistent);
    if (!before) throw notFound('Contact');
    if (Object.entries(fields).every(([k, v]) => before[k as keyof typeof fields] === v)) return before;
    // Never a whole save (changeContact's other way): an incoming message or a mute does not carry the code of
    // the contact's versioned save, its sentinels and its contact inboxes.
    const saved = await repo.changeContactAttributes(before, { set: { ...fields, updated_at: now() } });
    if (!saved) throw notFound('Contact');
    return saved;
  });

/** For other areas: an incoming message makes the contact active (Chatwoot then announces contact_updated). */
export const touchLastActivity = (accountId: number, contactId: number, at = now()) =>
  setPlainFields(accountId, contactId, { last_activity_at: at });

/** A conversation's mute and unmute: the contact blocked or unblocked, nothing else changed. */
export const setContactBlocked = (accountId: number, contactId: number, blocked: boolean) =>
  setPlainFields(accountId, contactId, { blocked });

// ── routes ──────────────────────────────────────────────────────────────────────────────────────

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

/** Removes the contact, its contact inboxes, its notes and the uniqueness of its email, phone and identifier. */
export async function deleteContact(accountId: number, contactId: number): Promise<void> {
  const removed = await retryStale(async () => {
    const { contact, inboxes } = await repo.getContactWithInboxes(accountId, contactId);
    if (!contact) throw notFound('Contact');
    await repo.deleteContactItems(contact, inboxes);
    return contact;
  });
  await Promise.all([
    deleteContactNotes(accountId, contactId),
    removed.company_id ? unlinkCompanyContact(accountId, removed.company_id, contactId) : undefined,
  ]);
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
  const contact = await changeContact(
    accountId,
    contactId,
    (c) => ({ ...c, labels: labels ?? [] }),
    () => ({ set: { labels: labels ?? [], updated_at: now() } }),
  );
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
  return payloadWithInboxes(
    await changeContact(
      accountId,
      contactId,
      (c) => ({ ...c, thumbnail: '' }),
      () => ({ set: { thumbnail: '', updated_at: now() } }),
    ),
  );
}
