import { createHmac, timingSafeEqual } from 'node:crypto';
import { findContactInbox } from '#shared/db/repositories/contacts.ts';
import { getConversation } from '#shared/db/repositories/conversations.ts';
import { findInboxByIdentifier } from '#shared/db/repositories/inboxes.ts';
import { hmacFailed, notFound } from '#shared/errors.ts';
import type { ContactInboxRecord, ContactRecord } from '#shared/model/contacts.ts';
import type { ConversationActor, ConversationRecord } from '#shared/model/conversations.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import type { Identity } from './schemas.ts';
import { activeAccount } from '../accounts/suspension.ts';
import type { AccountRecord } from '#shared/model/identity.ts';

// Who the caller of the public interface is (docs/chatwoot.md#public-api): the identifiers in the path are the only
// credential. The inbox identifier names an API inbox, the contact identifier a source id in that inbox,
// the conversation must be the contact's. Anything else is 404, whichever part is wrong.

/** Longer values cannot be identifiers, and must not reach a key (DynamoDB caps key sizes). */
const MAX_IDENTIFIER = 255;

async function findApiInbox(identifier: string | undefined): Promise<InboxRecord> {
  if (!identifier || identifier.length > MAX_IDENTIFIER) throw notFound('Inbox');
  const inbox = await findInboxByIdentifier(identifier);
  if (inbox?.channel_type !== 'Channel::Api') throw notFound('Inbox');
  return inbox;
}

const accounts = new WeakMap<InboxRecord, Promise<AccountRecord>>();

/** The inbox's account, read once per request; 403 `account_suspended` when it is suspended. */
export function accountOf(inbox: InboxRecord): Promise<AccountRecord> {
  let account = accounts.get(inbox);
  if (!account) {
    account = activeAccount(inbox.account_id, 'Inbox');
    accounts.set(inbox, account);
  }
  return account;
}

/** The API inbox of an identifier (404 otherwise) whose account is not suspended (403). */
export async function apiInbox(identifier: string | undefined): Promise<InboxRecord> {
  const inbox = await findApiInbox(identifier);
  await accountOf(inbox);
  return inbox;
}

/** Reads side by side; a suspended account answers before anything else that is wrong. */
async function withActiveAccount<T>(inbox: InboxRecord, read: Promise<T>): Promise<T> {
  const [account, value] = await Promise.allSettled([accountOf(inbox), read]);
  if (account.status === 'rejected') throw account.reason;
  if (value.status === 'rejected') throw value.reason;
  return value.value;
}

export async function contactInboxOf(inbox: InboxRecord, sourceId: string | undefined): Promise<ContactInboxRecord> {
  if (!sourceId || sourceId.length > MAX_IDENTIFIER) throw notFound('Contact');
  const ci = await findContactInbox(inbox.id, sourceId);
  if (!ci || ci.account_id !== inbox.account_id) throw notFound('Contact');
  return ci;
}

export interface Caller {
  inbox: InboxRecord;
  ci: ContactInboxRecord;
}

export async function caller(inboxIdentifier: string | undefined, sourceId: string | undefined): Promise<Caller> {
  const inbox = await findApiInbox(inboxIdentifier);
  return { inbox, ci: await withActiveAccount(inbox, contactInboxOf(inbox, sourceId)) };
}

/**
 * Which conversations a contact inbox sees (docs/chatwoot.md#public-contacts): an identity-verified one all
 * conversations of its contact, any other only those started on itself.
 */
export const canSee = (ci: ContactInboxRecord, c: ConversationRecord) =>
  c.contact_id === ci.contact_id && (ci.hmac_verified || (c.inbox_id === ci.inbox_id && c.source_id === ci.source_id));

/** The caller and one of its conversations; `consistent` for the read a change starts from. */
export async function callerConversation(
  inboxIdentifier: string | undefined,
  sourceId: string | undefined,
  displayId: number,
  consistent = false,
): Promise<Caller & { conversation: ConversationRecord }> {
  const inbox = await findApiInbox(inboxIdentifier);
  const [ci, conversation] = await withActiveAccount(
    inbox,
    Promise.all([contactInboxOf(inbox, sourceId), getConversation(inbox.account_id, displayId, consistent)]),
  );
  if (!conversation || !canSee(ci, conversation)) throw notFound('Conversation');
  return { inbox, ci, conversation };
}

export const contactActor = (ci: ContactInboxRecord): ConversationActor => ({ type: 'contact', contactId: ci.contact_id });

/**
 * HMAC identity validation (docs/chatwoot.md#public-contacts): applies when a hash is sent or the inbox makes it
 * mandatory; the hash must be the hex HMAC-SHA256 of `identifier` ("" when absent) under the inbox's
 * `hmac_token`. A wrong or missing hash is 401 with Chatwoot's words (Chatwoot's public API answers 500).
 * Returns the identifier the hash proves ("" proves no one), or undefined when no check applied.
 */
export function checkIdentity(inbox: InboxRecord, proof: Identity): string | undefined {
  const hash = proof.identifier_hash ?? '';
  if (!hash && !inbox.hmac_mandatory) return undefined;
  const identifier = proof.identifier ?? '';
  const expected = Buffer.from(inbox.hmac_token ? createHmac('sha256', inbox.hmac_token).update(identifier).digest('hex') : '');
  const given = Buffer.from(hash.toLowerCase());
  if (!expected.length || given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw hmacFailed(hash ? 'does not match identifier' : 'is required by this inbox');
  }
  return identifier;
}

/**
 * Whether a proven identifier is this contact's. Only then does the contact inbox become verified (and
 * see the contact's other conversations): a valid hash for someone else's identifier proves nothing here.
 */
export const proves = (proven: string | undefined, contact: Pick<ContactRecord, 'identifier'>) => !!proven && proven === contact.identifier;

// On an inbox that makes the identity hash mandatory, an email or phone number is no proof of who the
// caller is: whoever knows a customer's address could otherwise become that customer (Chatwoot lets
// them). There a caller is proven as its contact only by a valid hash of the contact's identifier (in
// this request, or earlier on its contact inbox, which is then verified); an unproven caller may not
// change its contact's email or phone number, and no caller is ever joined to another contact by them
// (ContactIdentifyAction's `identifierOnly`).

/** The email and phone number a request would set on a contact (blank values change nothing). */
export function identityChanges(
  contact: Pick<ContactRecord, 'email' | 'phone_number'>,
  fields: { email?: string | null; phone_number?: string | null },
) {
  const changed: ('email' | 'phone_number')[] = [];
  if (fields.email && fields.email.toLowerCase() !== contact.email) changed.push('email');
  if (fields.phone_number && fields.phone_number !== contact.phone_number) changed.push('phone_number');
  return changed;
}

/** 401 when an HMAC-mandatory inbox's caller, not proven as its contact, would change its email or phone. */
export function assertMayChangeIdentity(
  inbox: InboxRecord,
  proven: boolean,
  contact: Pick<ContactRecord, 'email' | 'phone_number'>,
  fields: { email?: string | null; phone_number?: string | null },
) {
  if (!inbox.hmac_mandatory || proven) return;
  const changed = identityChanges(contact, fields);
  if (changed.length) throw hmacFailed(`is required to set ${changed.join(' and ')} on this inbox`);
}
