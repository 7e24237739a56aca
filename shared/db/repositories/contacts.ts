import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import * as keys from '../keys.ts';
import { check, del, put, transact, type TxItem } from '../transact.ts';
import { taken } from '#shared/errors.ts';
import { pubsubTokenLocation } from '#shared/crypto/tokens.ts';
import type { ContactInboxRecord, ContactRecord } from '#shared/model/contacts.ts';
import { getItem, getMany, queryItems, queryPrefix, record } from './common.ts';
import { applyChanges, ensureMaps, mapsToCreate, StaleWrite, updateItem, type AttributeChanges } from './versioned.ts';

// Access patterns of the contacts area (AP40-59; the table is docs/data-model.md#keys-and-access-patterns).

export type UniqueField = 'email' | 'phone_number' | 'identifier';
export const UNIQUE_FIELDS: UniqueField[] = ['email', 'phone_number', 'identifier'];

/** AP40: one contact. */
export const getContact = (accountId: number, contactId: number, consistent = false) =>
  getItem<ContactRecord>(keys.contact(accountId, contactId), consistent);

/** AP41: several contacts by id (BatchGet); results keep the order of `ids`. */
export const getContacts = (accountId: number, ids: number[]) => getMany<ContactRecord>(ids.map((id) => keys.contact(accountId, id)));

/** AP42: a contact and its contact inboxes in one Query (they share the contact's partition). */
export async function getContactWithInboxes(accountId: number, contactId: number) {
  const items = await queryItems({
    KeyConditionExpression: 'pk = :p',
    ExpressionAttributeValues: { ':p': keys.contactPartition(accountId, contactId) },
  });
  const contactItem = items.find((i) => i.sk === keys.contact(accountId, contactId).sk);
  return {
    contact: record<ContactRecord>(contactItem),
    inboxes: items.filter((i) => i !== contactItem).map((i) => record<ContactInboxRecord>(i)!),
  };
}

/** AP43: the contact inboxes of a contact. */
export async function listContactInboxes(accountId: number, contactId: number): Promise<ContactInboxRecord[]> {
  const p = keys.contactInboxesPrefix(accountId, contactId);
  return (await queryPrefix({ pk: p.pk }, p.skPrefix)).map((i) => record<ContactInboxRecord>(i)!);
}

/**
 * AP44: the contact inbox holding a source id in an inbox: the uniqueness sentinel names the contact,
 * then the contact inbox itself (both strongly consistent, so a just-created source id is found at once).
 */
export async function findContactInbox(inboxId: number, sourceId: string): Promise<ContactInboxRecord | undefined> {
  const owner = await getItem<{ account_id: number; contact_id: number }>(keys.sourceIdUnique(inboxId, sourceId), true);
  if (!owner) return undefined;
  return getItem<ContactInboxRecord>(keys.contactInbox(owner.account_id, owner.contact_id, inboxId, sourceId), true);
}

/** AP45: the contact of an account that holds an email (lower-cased), phone number or identifier. */
export async function findContactIdBy(accountId: number, field: UniqueField, value: string): Promise<number | undefined> {
  const v = field === 'email' ? value.toLowerCase() : value;
  return (await getItem<{ owner_id: number }>(keys.contactUnique(accountId, field, v), true))?.owner_id;
}

// ── the listing projection ──────────────────────────────────────────────────────────────────────
// Lists and search must see every listed contact of an account (substring search, any sort, total
// count), so they read one partition of small items instead of the contacts themselves. Only contacts
// Chatwoot lists ("resolved": email, phone or identifier present) have one. Attribute names are short
// on purpose: the read cost is the items' total size.

export interface ContactListing {
  id: number;
  name: string;
  email: string | null;
  phone_number: string | null;
  identifier: string | null;
  company: string | null;
  city: string | null;
  country: string | null;
  labels: string[];
  created_at: number;
  last_activity_at: number | null;
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
const orUndefined = <T>(v: T | null) => (v === null || v === '' ? undefined : v);

export const isListed = (c: ContactRecord) => !!(c.email || c.phone_number || c.identifier);

function listingItem(c: ContactRecord) {
  const a = c.additional_attributes ?? {};
  return {
    ...keys.contactListing(c.account_id, c.id),
    type: 'contact_listing',
    n: orUndefined(c.name),
    e: orUndefined(c.email),
    p: orUndefined(c.phone_number),
    i: orUndefined(c.identifier),
    co: orUndefined(str(a.company_name)),
    ci: orUndefined(str(a.city)),
    cn: orUndefined(str(a.country)),
    l: c.labels.length ? c.labels : undefined,
    c: c.created_at,
    a: orUndefined(c.last_activity_at),
  };
}

function listingOf(item: Record<string, unknown>): ContactListing {
  return {
    id: keys.contactIdFromListingSk(String(item.sk)),
    name: (item.n as string | undefined) ?? '',
    email: (item.e as string | undefined) ?? null,
    phone_number: (item.p as string | undefined) ?? null,
    identifier: (item.i as string | undefined) ?? null,
    company: (item.co as string | undefined) ?? null,
    city: (item.ci as string | undefined) ?? null,
    country: (item.cn as string | undefined) ?? null,
    labels: (item.l as string[] | undefined) ?? [],
    created_at: Number(item.c),
    last_activity_at: item.a === undefined ? null : Number(item.a),
  };
}

/** AP46: every listed contact of an account, compactly (reads the whole listing partition). */
export async function listContactListings(accountId: number): Promise<ContactListing[]> {
  const items = await queryItems({
    KeyConditionExpression: 'pk = :p',
    ExpressionAttributeValues: { ':p': keys.contactListingPartition(accountId) },
  });
  return items.map(listingOf);
}

// ── writes ──────────────────────────────────────────────────────────────────────────────────────

/** The contact changed under us (another writer bumped its version, or it was deleted). */
export class StaleContact extends StaleWrite {}

const LISTED_ATTRIBUTES: Record<string, string> = { name: 'n', labels: 'l', last_activity_at: 'a' };
const LISTED_ADDITIONAL: Record<string, string> = { company_name: 'co', city: 'ci', country: 'cn' };

/** What `changes` changes in the contact's listing item (see listingItem), or undefined for nothing. */
function listingChanges(changes: AttributeChanges) {
  const set: Record<string, unknown> = {};
  const remove: string[] = [];
  const put = (attr: string, value: unknown) => (value === undefined ? remove.push(attr) : (set[attr] = value));
  for (const [field, attr] of Object.entries(LISTED_ATTRIBUTES)) {
    const value = changes.set?.[field];
    if (value === undefined) continue;
    put(attr, Array.isArray(value) ? (value.length ? value : undefined) : orUndefined(value as string | number | null));
  }
  const additional = changes.merge?.additional_attributes ?? {};
  for (const [field, attr] of Object.entries(LISTED_ADDITIONAL)) if (field in additional) put(attr, orUndefined(str(additional[field])));
  return Object.keys(set).length || remove.length ? { set, remove } : undefined;
}

/**
 * AP40 write without a read-change-write: the given fields replaced and the attribute hashes merged key
 * by key on the stored item (its version moved on), with the listing kept in step in the same
 * transaction. Concurrent changes of this kind never conflict; undefined when the contact is gone.
 * Email, phone number and identifier (uniqueness sentinels) are not changed this way.
 */
export async function changeContactAttributes(before: ContactRecord, changes: AttributeChanges): Promise<ContactRecord | undefined> {
  const key = keys.contact(before.account_id, before.id);
  const listing = isListed(before) ? listingChanges(changes) : undefined;
  if (!listing) return applyChanges<ContactRecord>(key, changes);
  const missing = mapsToCreate(before as unknown as Record<string, unknown>, changes);
  if (missing.length) await ensureMaps(key, missing);
  // The listing exists as long as the contact keeps the email, phone number or identifier it had.
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const stillListed = UNIQUE_FIELDS.filter((f) => before[f]).map((f, i) => {
    names[`#u${i}`] = f;
    values[`:u${i}`] = before[f];
    return `#u${i} = :u${i}`;
  });
  const listingNames: Record<string, string> = {};
  const listingValues: Record<string, unknown> = {};
  const sets = Object.entries(listing.set).map(([attr, value], i) => {
    listingNames[`#s${i}`] = attr;
    listingValues[`:s${i}`] = value;
    return `#s${i} = :s${i}`;
  });
  const removes = listing.remove.map((attr, i) => {
    listingNames[`#r${i}`] = attr;
    return `#r${i}`;
  });
  await transact([
    updateItem(key, { ...changes, condition: { expression: stillListed.join(' AND '), names, values } }),
    {
      item: {
        Update: {
          TableName: '',
          Key: keys.contactListing(before.account_id, before.id),
          UpdateExpression: [sets.length ? `SET ${sets.join(', ')}` : '', removes.length ? `REMOVE ${removes.join(', ')}` : '']
            .join(' ')
            .trim(),
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: listingNames,
          ...(sets.length ? { ExpressionAttributeValues: listingValues } : {}),
        },
      },
      onConflict: () => new StaleWrite(),
    },
  ]);
  return getContact(before.account_id, before.id, true);
}

/** An unlisted (anonymous) contact carries the sparse index the purge enumerates it by (AP260); a listed one has its listing. */
const contactItem = (c: ContactRecord) => ({
  ...keys.contact(c.account_id, c.id),
  ...(isListed(c) ? {} : keys.unlistedContactIndex(c.account_id, c.id)),
  type: 'contact',
  ...c,
});

const uniqueValue = (c: ContactRecord, f: UniqueField) => c[f] ?? null;

/**
 * Writes a contact (new when `before` is undefined) with its uniqueness sentinels moved and its listing
 * kept in step, and its new contact inbox when one is given, in one transaction. The contact's version guards
 * against lost updates; a taken email, phone number, identifier or source id throws 422 `taken`.
 */
export async function saveContact(
  before: ContactRecord | undefined,
  after: ContactRecord,
  contactInbox?: ContactInboxWrite,
  extra: TxItem[] = [],
): Promise<void> {
  const items: TxItem[] = [
    {
      item: before
        ? put(contactItem(after), { condition: { expression: 'version = :v', values: { ':v': before.version } } })
        : put(contactItem(after), { ifNew: true }),
      onConflict: () => new StaleContact(),
    },
  ];
  for (const f of UNIQUE_FIELDS) {
    const old = before ? uniqueValue(before, f) : null;
    const now = uniqueValue(after, f);
    if (old === now) continue;
    if (old !== null) items.push({ item: del(keys.contactUnique(after.account_id, f, old)) });
    if (now !== null) {
      items.push({
        item: put({ ...keys.contactUnique(after.account_id, f, now), type: 'unique', owner_id: after.id }, { ifNew: true }),
        onConflict: () => taken(f),
      });
    }
  }
  if (isListed(after)) items.push({ item: put(listingItem(after)) });
  else if (before && isListed(before)) items.push({ item: del(keys.contactListing(after.account_id, after.id)) });
  await transact([...items, ...(contactInbox ? contactInboxItems(contactInbox) : []), ...extra]);
}

/** Whether a contact inbox's pubsub token names it (shared/crypto/tokens.ts `locatedPubsubToken`). */
export function locates(ci: Pick<ContactInboxRecord, 'pubsub_token' | 'account_id' | 'contact_id' | 'inbox_id'>): boolean {
  const at = pubsubTokenLocation(ci.pubsub_token);
  return !!at && at.account_id === ci.account_id && at.contact_id === ci.contact_id && at.inbox_id === ci.inbox_id;
}

const contactInboxItem = (ci: ContactInboxRecord) => ({
  ...keys.contactInbox(ci.account_id, ci.contact_id, ci.inbox_id, ci.source_id),
  // The socket finds a contact inbox by its pubsub token: by key where the token names it (AP263), else
  // through the index (AP154: tokens older than located ones, or one that moved to another contact in a merge).
  ...(locates(ci) ? {} : keys.contactInboxPubsubIndex(ci.pubsub_token)),
  // An inbox's contact inboxes, for the purge of a deleted inbox (AP261).
  ...keys.inboxContactIndex(ci.account_id, ci.inbox_id, ci.contact_id, ci.source_id),
  type: 'contact_inbox',
  ...ci,
});

const sourceIdSentinel = (ci: ContactInboxRecord) => ({
  ...keys.sourceIdUnique(ci.inbox_id, ci.source_id),
  type: 'unique',
  account_id: ci.account_id,
  contact_id: ci.contact_id,
});

/**
 * The contact inbox and its (inbox, source_id) sentinel, for use inside any area's transaction.
 * A source id already used in the inbox fails the transaction with 422 `taken` on `source_id`.
 */
export function contactInboxWriteItems(ci: ContactInboxRecord): TxItem[] {
  return [
    { item: put(contactInboxItem(ci), { ifNew: true }), onConflict: () => taken('source_id') },
    { item: put(sourceIdSentinel(ci), { ifNew: true }), onConflict: () => taken('source_id') },
  ];
}

/** A plain conditional put; false when its condition failed. */
async function putIf(item: Record<string, unknown>, condition: string, values?: Record<string, unknown>): Promise<boolean> {
  try {
    await db().send(
      new PutCommand({ TableName: tableName(), Item: item, ConditionExpression: condition, ExpressionAttributeValues: values }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}

/**
 * A new contact inbox without a transaction (3 write units instead of 7): the source-id sentinel first
 * (it claims the source id), then the contact inbox. A crash in between leaves a sentinel naming the
 * contact without its contact inbox: the lookup (sentinel, then item) finds nothing, so the next claim
 * writes the missing item (the sentinel already names the same contact), and a claim by another contact
 * takes such a sentinel over. Two claims of one source id by one contact at once store one item; both
 * answer it. Returns the stored contact inbox.
 */
export async function writeContactInbox(ci: ContactInboxRecord): Promise<ContactInboxRecord> {
  const sentinel = sourceIdSentinel(ci);
  if (!(await putIf(sentinel, 'attribute_not_exists(pk)'))) {
    const owner = await getItem<{ account_id: number; contact_id: number }>(keys.sourceIdUnique(ci.inbox_id, ci.source_id), true);
    const same = owner?.account_id === ci.account_id && owner?.contact_id === ci.contact_id;
    if (!same) {
      const held = owner && (await getItem(keys.contactInbox(owner.account_id, owner.contact_id, ci.inbox_id, ci.source_id), true));
      if (held) throw taken('source_id');
      const ok = owner
        ? await putIf(sentinel, 'account_id = :a AND contact_id = :c', { ':a': owner.account_id, ':c': owner.contact_id })
        : await putIf(sentinel, 'attribute_not_exists(pk)');
      if (!ok) throw taken('source_id');
    }
  }
  if (await putIf(contactInboxItem(ci), 'attribute_not_exists(pk)')) return ci;
  const stored = await getItem<ContactInboxRecord>(keys.contactInbox(ci.account_id, ci.contact_id, ci.inbox_id, ci.source_id), true);
  if (!stored) throw taken('source_id');
  return stored;
}

/** Sets a contact inbox's `hmac_verified`; false when the contact inbox no longer exists. */
export async function setContactInboxVerified(ci: ContactInboxRecord): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.contactInbox(ci.account_id, ci.contact_id, ci.inbox_id, ci.source_id),
        UpdateExpression: 'SET hmac_verified = :v, updated_at = :u',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':v': ci.hmac_verified, ':u': ci.updated_at },
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}

/** Guards a write that hangs off a contact against the contact's concurrent deletion. */
export const contactExists = (accountId: number, contactId: number): TxItem => ({
  item: check(keys.contact(accountId, contactId), { expression: 'attribute_exists(pk)' }),
  onConflict: () => new StaleContact(),
});

/**
 * Moves a source id from another contact's contact inbox to a new one: the old row keeps living
 * under `renamedSourceId` (Chatwoot does this for email, SMS and WhatsApp inboxes, where the source id
 * is an address that changed hands).
 */
export function takeOverSourceIdItems(old: ContactInboxRecord, renamedSourceId: string, ci: ContactInboxRecord): TxItem[] {
  const renamed = { ...old, source_id: renamedSourceId, updated_at: ci.created_at };
  return [
    {
      item: put(sourceIdSentinel(ci), {
        condition: { expression: 'contact_id = :old', values: { ':old': old.contact_id } },
      }),
      onConflict: () => taken('source_id'),
    },
    { item: del(keys.contactInbox(old.account_id, old.contact_id, old.inbox_id, old.source_id)) },
    { item: put(contactInboxItem(renamed), { ifNew: true }) },
    { item: put(sourceIdSentinel(renamed), { ifNew: true }) },
    { item: put(contactInboxItem(ci), { ifNew: true }), onConflict: () => taken('source_id') },
  ];
}

/**
 * Removes a contact with its sentinels, listing and contact inboxes. The first transaction removes the
 * contact itself (from then on it answers 404); contact inboxes beyond one transaction's room follow.
 */
export async function deleteContactItems(c: ContactRecord, inboxes: ContactInboxRecord[]): Promise<void> {
  const first: TxItem[] = [
    {
      item: del(keys.contact(c.account_id, c.id), { expression: 'version = :v', values: { ':v': c.version } }),
      onConflict: () => new StaleContact(),
    },
  ];
  for (const f of UNIQUE_FIELDS) {
    const value = uniqueValue(c, f);
    if (value !== null) first.push({ item: del(keys.contactUnique(c.account_id, f, value)) });
  }
  if (isListed(c)) first.push({ item: del(keys.contactListing(c.account_id, c.id)) });
  const rest = inboxes.flatMap((ci) => [
    { item: del(keys.contactInbox(ci.account_id, ci.contact_id, ci.inbox_id, ci.source_id)) },
    { item: del(keys.sourceIdUnique(ci.inbox_id, ci.source_id)) },
  ]);
  const room = 100 - first.length;
  await transact([...first, ...rest.slice(0, room - (room % 2))]);
  for (let i = room - (room % 2); i < rest.length; i += 100) await transact(rest.slice(i, i + 100));
}

// ── merging two contacts (shared/domain/contacts/merge.ts runs the steps) ──────────────────────────

/**
 * Moves one contact inbox to another contact of the account, keeping its id, source id and pubsub token:
 * the new item, its source-id sentinel repointed, the old item removed, in one transaction. Runs again
 * harmlessly (the new item is overwritten, the sentinel may already point at the target).
 */
export async function moveContactInbox(ci: ContactInboxRecord, toContactId: number): Promise<void> {
  const moved = { ...ci, contact_id: toContactId };
  await transact([
    { item: put(contactInboxItem(moved)) },
    {
      item: put(sourceIdSentinel(moved), {
        condition: { expression: 'contact_id IN (:from, :to)', values: { ':from': ci.contact_id, ':to': toContactId } },
      }),
      onConflict: () => new StaleContact(),
    },
    { item: del(keys.contactInbox(ci.account_id, ci.contact_id, ci.inbox_id, ci.source_id)) },
    contactExists(ci.account_id, toContactId),
  ]);
}

/**
 * The last step of a merge, one transaction: the base contact becomes `after` (conditioned on the version
 * read) and the mergee goes (conditioned on its version) with its listing and sentinels. An email, phone
 * number or identifier the base takes over from the mergee keeps its sentinel, repointed; the base's own
 * moved or new values get theirs as in saveContact. Nothing else of the mergee may be left (contact
 * inboxes move first).
 */
export async function finishMerge(base: ContactRecord, after: ContactRecord, mergee: ContactRecord): Promise<void> {
  const a = base.account_id;
  const items: TxItem[] = [
    {
      item: put(contactItem(after), { condition: { expression: 'version = :v', values: { ':v': base.version } } }),
      onConflict: () => new StaleContact(),
    },
    {
      item: del(keys.contact(a, mergee.id), { expression: 'version = :v', values: { ':v': mergee.version } }),
      onConflict: () => new StaleContact(),
    },
  ];
  for (const f of UNIQUE_FIELDS) {
    const old = uniqueValue(base, f);
    const now = uniqueValue(after, f);
    const theirs = uniqueValue(mergee, f);
    if (old !== now && old !== null) items.push({ item: del(keys.contactUnique(a, f, old)) });
    if (now !== null && old !== now) {
      items.push(
        now === theirs
          ? {
              item: put(
                { ...keys.contactUnique(a, f, now), type: 'unique', owner_id: after.id },
                {
                  condition: { expression: 'owner_id = :m', values: { ':m': mergee.id } },
                },
              ),
              onConflict: () => new StaleContact(),
            }
          : {
              item: put({ ...keys.contactUnique(a, f, now), type: 'unique', owner_id: after.id }, { ifNew: true }),
              onConflict: () => taken(f),
            },
      );
    }
    if (theirs !== null && theirs !== now) items.push({ item: del(keys.contactUnique(a, f, theirs)) });
  }
  if (isListed(after)) items.push({ item: put(listingItem(after)) });
  else if (isListed(base)) items.push({ item: del(keys.contactListing(a, after.id)) });
  if (isListed(mergee)) items.push({ item: del(keys.contactListing(a, mergee.id)) });
  await transact(items);
}

/** A contact inbox to write: a new one, or one taking its source id over from another contact's contact inbox. */
export interface ContactInboxWrite {
  record: ContactInboxRecord;
  takeOver?: { from: ContactInboxRecord; renamedSourceId: string };
}

const contactInboxItems = (w: ContactInboxWrite): TxItem[] =>
  w.takeOver ? takeOverSourceIdItems(w.takeOver.from, w.takeOver.renamedSourceId, w.record) : contactInboxWriteItems(w.record);

/** A contact inbox taking its source id over (one transaction, guarded against the contact's deletion: StaleContact). */
export async function takeOverSourceId(w: ContactInboxWrite & { takeOver: NonNullable<ContactInboxWrite['takeOver']> }): Promise<void> {
  await transact([...contactInboxItems(w), contactExists(w.record.account_id, w.record.contact_id)]);
}
