import type { ContactInboxRecord, ContactRecord } from '#shared/model/contacts.ts';
import type { ConversationRecord } from '#shared/model/conversations.ts';
import { attachmentJson, senderJson, type Refs } from '../conversations/view.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import type { MessageRecord } from '#shared/model/messages.ts';

// JSON of the public interface (docs/contract.md#public-conversation, docs/contract.md#public-message,
// docs/chatwoot.md#public-api). Where the contract types a message field as string, object or integer, an absent
// value is "", {} or 0, never null, so that typed clients parse every message.

const iso = (t: number | null) => (t === null ? null : new Date(t * 1000).toISOString());

/** `GET /public/api/v1/inboxes/{inbox_identifier}` (docs/chatwoot.md#public-routes-and-identifiers). */
export function inboxInfoJson(inbox: InboxRecord) {
  return {
    identifier: inbox.inbox_identifier,
    identity_validation_enabled: inbox.hmac_mandatory ?? false,
    name: inbox.name,
    timezone: inbox.timezone,
    working_hours: inbox.working_hours,
    working_hours_enabled: inbox.working_hours_enabled,
    csat_survey_enabled: inbox.csat_survey_enabled,
    greeting_enabled: inbox.greeting_enabled,
    greeting_message: inbox.greeting_message,
  };
}

/** PublicContact (contacts create and show). */
export function publicContactJson(ci: ContactInboxRecord, c: ContactRecord) {
  return { source_id: ci.source_id, pubsub_token: ci.pubsub_token, id: c.id, name: c.name, email: c.email, phone_number: c.phone_number };
}

/** The raw contacts row (contact update, and `contact` in the public conversation): ISO times, Rails' column defaults. */
export function contactRowJson(c: ContactRecord) {
  return {
    id: c.id,
    name: c.name,
    email: c.email,
    phone_number: c.phone_number,
    account_id: c.account_id,
    created_at: iso(c.created_at),
    updated_at: iso(c.updated_at),
    additional_attributes: c.additional_attributes,
    identifier: c.identifier,
    custom_attributes: c.custom_attributes,
    last_activity_at: iso(c.last_activity_at),
    contact_type: c.contact_type,
    middle_name: '',
    last_name: '',
    location: c.location ?? '',
    country_code: c.country_code ?? '',
    blocked: c.blocked,
    company_id: null,
  };
}

const SENDER_TYPES = { Contact: 'contact', User: 'user', AgentBot: 'agent_bot' } as const;

/** What a message says about its conversation (the contact's own view of it). */
const conversationBrief = (c: ConversationRecord) => ({
  id: c.id,
  uuid: c.uuid,
  inbox_id: c.inbox_id,
  status: c.status,
  contact_last_seen_at: c.contact_last_seen_at ?? 0,
  agent_last_seen_at: c.agent_last_seen_at ?? 0,
  last_activity_at: c.last_activity_at,
});

/** Chat messages only: what the contact may see of a conversation (docs/chatwoot.md#public-conversations). */
export const isChatMessage = (m: MessageRecord) => !m.private && m.message_type !== 2;

/**
 * A message as the public interface shows it: the 22 fields of the contract's public message (sender_type in
 * lower case, as the contract's `contact` value), plus Chatwoot's `attachments` when there are some.
 */
export function publicMessageJson(m: MessageRecord, c: ConversationRecord, refs: Refs, echoId?: string) {
  const attachments = m.attachments.map(attachmentJson);
  return {
    id: m.id,
    content: m.content ?? '',
    account_id: m.account_id,
    inbox_id: m.inbox_id,
    conversation_id: m.conversation_id,
    message_type: m.message_type,
    created_at: m.created_at,
    updated_at: m.updated_at,
    private: m.private,
    status: m.status,
    source_id: m.source_id ?? '',
    content_type: m.content_type,
    content_attributes: m.content_attributes,
    sender_type: m.sender_type ? SENDER_TYPES[m.sender_type] : '',
    sender_id: m.sender_id ?? 0,
    external_source_ids: m.external_source_ids,
    additional_attributes: m.additional_attributes,
    processed_message_content: m.processed_message_content ?? '',
    sentiment: m.sentiment,
    conversation: conversationBrief(c),
    attachment: attachments[0] ?? {},
    sender: senderJson(m, refs) ?? {},
    ...(attachments.length ? { attachments } : {}),
    ...(echoId ? { echo_id: echoId } : {}),
  };
}

/** The contract's public conversation: `inbox_id` is a string; `contact` the raw contacts row. */
export function publicConversationJson(c: ConversationRecord, messages: MessageRecord[], refs: Refs) {
  const contact = refs.contacts.get(c.contact_id);
  return {
    id: c.id,
    uuid: c.uuid,
    inbox_id: String(c.inbox_id),
    contact_last_seen_at: c.contact_last_seen_at ?? 0,
    status: c.status,
    agent_last_seen_at: c.agent_last_seen_at ?? 0,
    messages: messages.map((m) => publicMessageJson(m, c, refs)),
    contact: contact ? contactRowJson(contact) : {},
  };
}
