import * as repo from '#shared/db/repositories/contacts.ts';
import { invalidField } from '#shared/errors.ts';
import type { ContactRecord } from '#shared/model/contacts.ts';
import { SORTS, type SortField } from './schemas.ts';
import { contactInboxesJson, contactJson } from './view.ts';

import { inboxesById } from './contact-inboxes.ts';
import { pageNumber } from '../paging.ts';

// The contact list and search: the account's listing projection (AP46) filtered, sorted and paged in memory.

const PAGE_SIZE = 15;

export type Query = Record<string, string | undefined>;

/** `include_contact_inboxes` defaults to true; when given, only the literal `true` keeps it. */
export const includeInboxes = (q: Query) => q.include_contact_inboxes === undefined || q.include_contact_inboxes === 'true';

/** Kaminari's reading of `page`: anything but a positive integer is page 1. */
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
  const wanted = new Set(
    raw
      .split(',')
      .map((l) => l.trim().toLowerCase())
      .filter(Boolean),
  );
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
  const inboxes = await inboxesById(
    accountId,
    parts.flatMap((p) => p.inboxes.map((ci) => ci.inbox_id)),
  );
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
