import { randomInt } from 'node:crypto';
import { findContactIdBy, findContactInbox, getContact, type UniqueField } from '#shared/db/repositories/contacts.ts';
import { getConversations, listContactConversationLinks } from '#shared/db/repositories/conversations.ts';
import { getMessage, listMessages } from '#shared/db/repositories/messages.ts';
import { invalidField, isTaken, notFound } from '#shared/errors.ts';
import { parseOrThrow } from '#shared/validate.ts';
import { createContact } from '../contacts/service.ts';
import { ensureContactInbox, markContactInboxVerified } from '../contacts/contact-inboxes.ts';
import { identifyContact } from '../contacts/identify.ts';
import type { ContactInboxRecord, ContactRecord } from '#shared/model/contacts.ts';
import { changeStatus, markSeenByContact, startConversation } from '../conversations/service.ts';
import type { ConversationRecord } from '#shared/model/conversations.ts';
import { announceTyping } from '../conversations/typing.ts';
import { loadRefs } from '../conversations/view.ts';
import { addMessage, saveMessage } from '../messages/service.ts';
import type { MessageRecord } from '#shared/model/messages.ts';
import { now } from '#shared/model/time.ts';
import {
  accountOf,
  apiInbox,
  assertMayChangeIdentity,
  caller,
  callerConversation,
  canSee,
  checkIdentity,
  contactActor,
  proves,
  type Caller,
} from './access.ts';
import {
  IdentitySchema,
  type PublicContactUpdate,
  type PublicNewContact,
  type PublicNewConversation,
  type PublicNewMessage,
  type Submit,
} from './schemas.ts';
import { contactRowJson, inboxInfoJson, isChatMessage, publicContactJson, publicConversationJson, publicMessageJson } from './view.ts';

// Use cases of the public interface (docs/chatwoot.md#public-api; contract endpoints 13-14,
// docs/contract.md#endpoints). Every change goes through the account interface's services with the contact as
// actor, so it makes the same item changes and therefore the same events.

type Query = Record<string, string | undefined>;

export const inboxInfo = async (inboxIdentifier: string | undefined) => inboxInfoJson(await apiInbox(inboxIdentifier));

// ── contacts ───────────────────────────────────────────────────────────────────────────────────────

const ADJECTIVES = [
  'autumn',
  'hidden',
  'bitter',
  'misty',
  'silent',
  'dry',
  'dark',
  'summer',
  'icy',
  'quiet',
  'white',
  'cool',
  'spring',
  'winter',
  'twilight',
  'crimson',
  'blue',
  'broken',
  'cold',
  'frosty',
  'green',
  'late',
  'bold',
  'little',
  'morning',
  'old',
  'red',
  'still',
  'small',
  'shy',
  'wild',
  'young',
  'proud',
  'purple',
];
const NOUNS = [
  'waterfall',
  'river',
  'breeze',
  'moon',
  'rain',
  'wind',
  'sea',
  'snow',
  'lake',
  'sunset',
  'pine',
  'shadow',
  'leaf',
  'dawn',
  'forest',
  'hill',
  'cloud',
  'meadow',
  'sun',
  'bird',
  'brook',
  'field',
  'fire',
  'flower',
  'feather',
  'grass',
  'haze',
  'mountain',
  'night',
  'pond',
  'sky',
  'star',
  'wave',
  'frog',
];

/** Chatwoot names a contact created without a name like `dark-sun-1234`. */
export const randomName = () => `${ADJECTIVES[randomInt(ADJECTIVES.length)]}-${NOUNS[randomInt(NOUNS.length)]}-${randomInt(1000, 10000)}`;

/** Chatwoot's order for finding the contact a create means. */
const IDENTIFY_BY: UniqueField[] = ['identifier', 'email', 'phone_number'];

async function contactOf(ci: ContactInboxRecord): Promise<ContactRecord> {
  const contact = await getContact(ci.account_id, ci.contact_id);
  if (!contact) throw notFound('Contact');
  return contact;
}

/** The contact inbox, verified when the proven identifier is its contact's. */
async function withProof(ci: ContactInboxRecord, contact: ContactRecord, proven: string | undefined) {
  return proves(proven, contact) ? markContactInboxVerified(ci) : ci;
}

/**
 * The values of `fields` that no other contact of the account holds (an HMAC-mandatory inbox's new
 * contact takes no one's email or phone number).
 */
async function unheld(accountId: number, fields: { email?: string | null; phone_number?: string | null }) {
  const [email, phone] = await Promise.all([
    fields.email ? findContactIdBy(accountId, 'email', fields.email) : undefined,
    fields.phone_number ? findContactIdBy(accountId, 'phone_number', fields.phone_number) : undefined,
  ]);
  return { email: email === undefined ? fields.email : undefined, phone_number: phone === undefined ? fields.phone_number : undefined };
}

async function createOnce(inbox: Caller['inbox'], input: PublicNewContact, proven: string | undefined) {
  const accountId = inbox.account_id;
  if (input.source_id) {
    const existing = await findContactInbox(inbox.id, input.source_id);
    if (existing) {
      const contact = await contactOf(existing);
      return publicContactJson(await withProof(existing, contact, proven), contact);
    }
  }
  // On an HMAC-mandatory inbox only the proven identifier finds a contact.
  const by = inbox.hmac_mandatory ? IDENTIFY_BY.slice(0, 1) : IDENTIFY_BY;
  const found = await Promise.all(by.map((f) => (input[f] ? findContactIdBy(accountId, f, input[f]!) : undefined)));
  const contactId = found.find((id) => id !== undefined);
  if (contactId !== undefined) {
    const contact = await getContact(accountId, contactId);
    if (!contact) throw notFound('Contact');
    const ci = await ensureContactInbox(accountId, contactId, inbox.id, input.source_id ?? undefined, {
      hmacVerified: proves(proven, contact),
    });
    return publicContactJson(ci, contact);
  }
  const identifying = inbox.hmac_mandatory ? await unheld(accountId, input) : input;
  const fields = {
    name: input.name || randomName(),
    email: identifying.email,
    phone_number: identifying.phone_number,
    identifier: input.identifier,
    avatar_url: input.avatar_url,
    custom_attributes: input.custom_attributes,
    source_id: input.source_id,
  };
  const { contact, contactInbox } = await createContact(accountId, fields, inbox, {
    hmacVerified: proves(proven, { identifier: fields.identifier ?? null }),
  });
  return publicContactJson(contactInbox!, contact);
}

/**
 * `POST /contacts` (docs/chatwoot.md#public-contacts): a known `source_id` of this inbox returns its contact;
 * otherwise the account's contact with that identifier, email or phone (in that order) gets a contact inbox here, or
 * a new contact is made. On an HMAC-mandatory inbox only the proven identifier finds a contact, and a new contact
 * leaves out an email or phone number another contact holds. A concurrent create of the same contact is found on a
 * second pass.
 */
export async function createPublicContact(inboxIdentifier: string | undefined, input: PublicNewContact) {
  const inbox = await apiInbox(inboxIdentifier);
  const proven = checkIdentity(inbox, input);
  // A valid hash of the empty identifier proves no one: such a contact takes no email or phone.
  assertMayChangeIdentity(inbox, !!proven, { email: null, phone_number: null }, input);
  try {
    return await createOnce(inbox, input, proven);
  } catch (err) {
    if (!isTaken(err)) throw err;
    return createOnce(inbox, input, proven);
  }
}

/** `GET /contacts/{contact_identifier}`: the identity proof, if any, comes in the query string. */
export async function showPublicContact(inboxIdentifier: string | undefined, sourceId: string | undefined, query: Query) {
  const { inbox, ci } = await caller(inboxIdentifier, sourceId);
  const proven = checkIdentity(inbox, parseOrThrow(IdentitySchema, query));
  const contact = await contactOf(ci);
  return publicContactJson(await withProof(ci, contact, proven), contact);
}

/**
 * `PATCH /contacts/{contact_identifier}` (docs/chatwoot.md#public-contacts, Chatwoot's ContactIdentifyAction): blank
 * values change nothing, custom attributes merge deeply; answers the raw contact row. An email or phone number
 * another contact of the account holds folds this contact into that one (it survives, with this contact inbox), by
 * the rules of contacts/identify.ts. On an HMAC-mandatory inbox it never does, and only a caller proven as this
 * contact may change its email or phone number.
 */
export async function updatePublicContact(inboxIdentifier: string | undefined, sourceId: string | undefined, input: PublicContactUpdate) {
  const { inbox, ci } = await caller(inboxIdentifier, sourceId);
  const proven = checkIdentity(inbox, input);
  const contact = await contactOf(ci);
  const verified = await withProof(ci, contact, proven);
  assertMayChangeIdentity(inbox, verified.hmac_verified, contact, input);
  const updated = await identifyContact(
    ci.account_id,
    contact,
    {
      name: input.name,
      email: input.email,
      phone_number: input.phone_number,
      avatar_url: input.avatar_url,
      custom_attributes: input.custom_attributes,
    },
    { identifierOnly: !!inbox.hmac_mandatory },
  );
  return contactRowJson(updated);
}

// ── conversations ──────────────────────────────────────────────────────────────────────────────────

/** Chatwoot embeds every chat message; beyond this many only the newest are shown. */
const EMBEDDED_MESSAGES = 1000;
const PAGE = 20;

/**
 * The newest `want` chat messages of a conversation (below `before`), oldest first: reads back page by
 * page past private notes and activity messages.
 */
export async function chatMessages(c: ConversationRecord, want: number, before?: number): Promise<MessageRecord[]> {
  const out: MessageRecord[] = [];
  let cursor = before;
  for (;;) {
    const page = await listMessages(c.account_id, c.id, { before: cursor, limit: want });
    out.unshift(...page.filter(isChatMessage));
    if (page.length < want || out.length >= want) return out.slice(-want);
    cursor = page[0].id;
  }
}

/** Senders of the messages and the conversations' contacts, in one batch of reads. */
export const refsFor = (accountId: number, conversations: ConversationRecord[], messages: MessageRecord[]) =>
  loadRefs(
    accountId,
    undefined,
    [],
    [...messages, ...conversations.map((c) => ({ sender_type: 'Contact' as const, sender_id: c.contact_id }))],
  );

async function conversationsJson(accountId: number, conversations: ConversationRecord[]) {
  const messages = await Promise.all(conversations.map((c) => chatMessages(c, EMBEDDED_MESSAGES)));
  const refs = await refsFor(accountId, conversations, messages.flat());
  return conversations.map((c, i) => publicConversationJson(c, messages[i], refs));
}

const conversationJson = async (c: ConversationRecord) => (await conversationsJson(c.account_id, [c]))[0];

/** `GET /contacts/{contact_identifier}/conversations`: every conversation the contact inbox sees, oldest first. */
export async function listPublicConversations(inboxIdentifier: string | undefined, sourceId: string | undefined) {
  const { ci } = await caller(inboxIdentifier, sourceId);
  const links = (await listContactConversationLinks(ci.account_id, ci.contact_id)).filter(
    (l) => ci.hmac_verified || (l.inbox_id === ci.inbox_id && l.source_id === ci.source_id),
  );
  const found = await getConversations(
    ci.account_id,
    links.map((l) => l.conversation_id),
  );
  return conversationsJson(
    ci.account_id,
    found.filter((c): c is ConversationRecord => !!c && canSee(ci, c)),
  );
}

/**
 * `POST /contacts/{contact_identifier}/conversations`: only custom attributes are taken; the status follows the inbox
 * and contact (docs/chatwoot.md#public-conversations), and a single-conversation inbox returns the last one.
 */
export async function createPublicConversation(
  inboxIdentifier: string | undefined,
  sourceId: string | undefined,
  input: PublicNewConversation,
) {
  const { inbox, ci } = await caller(inboxIdentifier, sourceId);
  const [account, contact] = await Promise.all([accountOf(inbox), contactOf(ci)]);
  const { conversation } = await startConversation(
    account,
    contactActor(ci),
    { inbox, contact, contactInbox: ci },
    {
      custom_attributes: input.custom_attributes ?? undefined,
    },
  );
  return conversationJson(conversation);
}

/** Contract endpoint 13 (docs/contract.md#endpoints). */
export async function showPublicConversation(inboxIdentifier: string | undefined, sourceId: string | undefined, displayId: number) {
  return conversationJson((await callerConversation(inboxIdentifier, sourceId, displayId)).conversation);
}

/** `toggle_status`: the contact can only resolve; an already resolved conversation stays as it is. */
export async function resolvePublicConversation(inboxIdentifier: string | undefined, sourceId: string | undefined, displayId: number) {
  const { inbox, ci, conversation } = await callerConversation(inboxIdentifier, sourceId, displayId, true);
  const { conversation: after } = await changeStatus(await accountOf(inbox), contactActor(ci), conversation, { status: 'resolved' });
  return conversationJson(after);
}

/** `toggle_typing`: `on`/`off` raise the typing events; any other value does nothing (200 either way). */
export async function togglePublicTyping(
  inboxIdentifier: string | undefined,
  sourceId: string | undefined,
  displayId: number,
  status: unknown,
) {
  const { ci, conversation: c } = await callerConversation(inboxIdentifier, sourceId, displayId);
  if (status !== 'on' && status !== 'off') return;
  await announceTyping(contactActor(ci), c, { typing_status: status, is_private: false });
}

/**
 * Contract endpoint 14 (docs/contract.md#endpoints): sets the conversation's `contact_last_seen_at`; 200 with an
 * empty body.
 */
export async function markPublicConversationSeen(inboxIdentifier: string | undefined, sourceId: string | undefined, displayId: number) {
  await markSeenByContact((await callerConversation(inboxIdentifier, sourceId, displayId, true)).conversation);
}

// ── messages ───────────────────────────────────────────────────────────────────────────────────────

export function beforeCursor(raw: string | undefined) {
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d{1,15}$/.test(raw)) throw invalidField('before', 'must be a message id');
  return Number(raw);
}

/** `GET .../messages`: the latest 20 chat messages (before `before`), oldest first. */
export async function listPublicMessages(
  inboxIdentifier: string | undefined,
  sourceId: string | undefined,
  displayId: number,
  query: Query,
) {
  const before = beforeCursor(query.before);
  const { conversation: c } = await callerConversation(inboxIdentifier, sourceId, displayId);
  const messages = await chatMessages(c, PAGE, before);
  const refs = await refsFor(c.account_id, [], messages);
  return messages.map((m) => publicMessageJson(m, c, refs));
}

/** `POST .../messages`: always an incoming message from the contact (reopens a resolved conversation). */
export async function createPublicMessage(
  inboxIdentifier: string | undefined,
  sourceId: string | undefined,
  displayId: number,
  input: PublicNewMessage,
) {
  const { inbox, ci, conversation } = await callerConversation(inboxIdentifier, sourceId, displayId, true);
  const { conversation: after, message } = await addMessage(await accountOf(inbox), contactActor(ci), conversation, input);
  return publicMessageJson(message, after, await refsFor(after.account_id, [], [message]), input.echo_id);
}

/** Content types that ask the contact for an answer. */
const INTERACTIVE = new Set(['input_text', 'input_textarea', 'input_email', 'input_select', 'form', 'input_csat']);
const CSAT_WINDOW_SECONDS = 14 * 24 * 3600;

/**
 * `PATCH .../messages/{message_id}` (docs/chatwoot.md#public-messages): the contact's answer to an interactive
 * message, kept in `content_attributes.submitted_values`.
 */
export async function submitPublicMessage(
  inboxIdentifier: string | undefined,
  sourceId: string | undefined,
  displayId: number,
  messageId: number,
  input: Submit,
) {
  const { ci, conversation: c } = await callerConversation(inboxIdentifier, sourceId, displayId, true);
  const updated = await submitAnswer(ci, c, messageId, { submitted_values: input.submitted_values });
  return publicMessageJson(updated, c, await refsFor(c.account_id, [], [updated]));
}

/** The contact's answer to an interactive message of its conversation (public interface and widget). */
export async function submitAnswer(
  ci: Pick<ContactInboxRecord, 'contact_id'>,
  c: ConversationRecord,
  messageId: number,
  answer: Record<string, unknown>,
) {
  const m = await getMessage(c.account_id, c.id, messageId);
  if (!m || !isChatMessage(m)) throw notFound('Message');
  if (!INTERACTIVE.has(m.content_type)) throw invalidField('submitted_values', `cannot be submitted for a ${m.content_type} message`);
  const t = now();
  if (m.content_type === 'input_csat' && t - m.created_at > CSAT_WINDOW_SECONDS) {
    throw invalidField('submitted_values', 'You cannot update the CSAT survey after 14 days', 'expired');
  }
  const updated: MessageRecord = {
    ...m,
    content_attributes: { ...m.content_attributes, ...answer },
    updated_at: t,
    performed_by: { type: 'contact', id: ci.contact_id },
  };
  await saveMessage(c, updated);
  return updated;
}
