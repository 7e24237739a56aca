import { getAccount, getUser } from '#shared/db/repositories/identity.ts';
import { findContactInbox, getContact } from '#shared/db/repositories/contacts.ts';
import { getInbox } from '#shared/db/repositories/inboxes.ts';
import { conversationOf, getConversation } from '#shared/db/repositories/conversations.ts';
import { getMany, record } from '#shared/db/repositories/common.ts';
import * as keys from '#shared/db/keys.ts';
import type { AccountRecord, UserRecord } from '#shared/model/identity.ts';
import type { ContactRecord } from '#shared/model/contacts.ts';
import { contactAvatarUrl, contactPushJson, contactWebhookJson, inboxAvatarUrl } from '../contacts/view.ts';
import type { ConversationRecord } from '#shared/model/conversations.ts';
import {
  attachmentJson,
  botPushJson,
  conversationSlaJson,
  loadRefs,
  messagePushJson,
  userPushJson,
  type Refs,
} from '../conversations/view.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import { messageTypeName, type MessageRecord } from '#shared/model/messages.ts';
import type { ChangedAttributes, DomainEvent } from './domain-events.ts';

// Webhook payloads (docs/chatwoot.md#webhook-payloads), built from the state at send time as Chatwoot does, with the
// views the REST API uses.

const iso = (t: number | null | undefined) => (typeof t === 'number' ? new Date(t * 1000).toISOString() : null);
const accountRef = (a: Pick<AccountRecord, 'id' | 'name'>) => ({ id: a.id, name: a.name });
const inboxRef = (i: InboxRecord | undefined) => (i ? { id: i.id, name: i.name } : null);

/** `changed_attributes` with a file reference's moves shown as clients get files (signed links). */
function shownChanges(list: ChangedAttributes, field: string, show: (ref: string) => string): ChangedAttributes {
  const shown = (v: unknown) => (typeof v === 'string' ? show(v) : v);
  return list.map((entry) => {
    const move = entry[field];
    return move ? { ...entry, [field]: { previous_value: shown(move.previous_value), current_value: shown(move.current_value) } } : entry;
  });
}

/** What a payload about one conversation needs, loaded once per event. */
export interface ConversationContext {
  account: AccountRecord;
  conversation: ConversationRecord;
  refs: Refs;
  contactInbox: Awaited<ReturnType<typeof findContactInbox>>;
}

export async function conversationContext(
  accountId: number,
  displayId: number,
  fallback?: ConversationRecord,
  messages: MessageRecord[] = [],
): Promise<ConversationContext | undefined> {
  const memo = `${accountId}:${displayId}`;
  const guess = contactOfConversation.get(memo);
  const [account, [current, guessed]] = await Promise.all([getAccount(accountId), conversationAndContact(accountId, displayId, guess)]);
  // A conversation deleted meanwhile: Chatwoot's job discards itself; the image in hand still tells the story.
  const conversation = current ?? fallback;
  if (!account || !conversation) return undefined;
  if (current) {
    if (contactOfConversation.size >= 10_000) contactOfConversation.clear();
    contactOfConversation.set(memo, current.contact_id);
  }
  // The contact read beside the conversation is used only if it still is the conversation's (a merge moves it).
  const known = guessed && guessed.id === conversation.contact_id ? [guessed] : [];
  const [refs, contactInbox] = await Promise.all([
    loadRefs(accountId, undefined, [conversation], messages, { contacts: known }),
    findContactInbox(conversation.inbox_id, conversation.source_id),
  ]);
  return { account, conversation, refs, contactInbox };
}

/**
 * The contact id each conversation had when this container last read it. A conversation's contact only
 * changes by a merge, so the next event of the conversation reads the conversation and its contact in one
 * BatchGet (AP61 with AP40's key); a guess gone stale costs the contact's own read, never a wrong payload.
 */
const contactOfConversation = new Map<string, number>();

async function conversationAndContact(accountId: number, displayId: number, contactId: number | undefined) {
  if (contactId === undefined) return [await getConversation(accountId, displayId), undefined] as const;
  const [conversation, contact] = await getMany<Record<string, unknown>>([
    keys.conversation(accountId, displayId),
    keys.contact(accountId, contactId),
  ]);
  return [conversationOf(conversation), record<ContactRecord>(contact)] as const;
}

function assigneePush(c: ConversationRecord, refs: Refs) {
  if (c.assignee_id !== null) {
    const u = refs.users.get(c.assignee_id);
    if (u) return { assignee: userPushJson(u), assignee_type: 'User' };
  }
  if (c.assignee_agent_bot_id !== null) {
    const b = refs.bots.get(c.assignee_agent_bot_id);
    if (b) return { assignee: botPushJson(b), assignee_type: 'AgentBot' };
  }
  return { assignee: null, assignee_type: null };
}

/** Conversation push data (docs/chatwoot.md#conversation-push-data), the body of conversation events. */
export function conversationPushData(ctx: ConversationContext) {
  const { conversation: c, refs, contactInbox: ci } = ctx;
  const contact = refs.contacts.get(c.contact_id);
  const inbox = refs.inboxes.get(c.inbox_id);
  const team = c.team_id !== null ? refs.teams.get(c.team_id) : undefined;
  const lastChat = c.last_non_activity_message && !c.last_non_activity_message.private ? c.last_non_activity_message : null;
  return {
    additional_attributes: c.additional_attributes,
    can_reply: true,
    channel: inbox?.channel_type ?? null,
    contact_inbox: ci
      ? {
          id: ci.id,
          contact_id: ci.contact_id,
          inbox_id: ci.inbox_id,
          source_id: ci.source_id,
          created_at: iso(ci.created_at),
          updated_at: iso(ci.updated_at),
          hmac_verified: ci.hmac_verified,
          pubsub_token: ci.pubsub_token,
        }
      : null,
    id: c.id,
    inbox_id: c.inbox_id,
    messages: lastChat ? [messagePushJson(lastChat, c, refs)] : [],
    labels: c.labels,
    meta: {
      sender: contact ? contactPushJson(contact) : null,
      ...assigneePush(c, refs),
      team: team ? { id: team.id, name: team.name } : null,
      hmac_verified: c.hmac_verified,
    },
    status: c.status,
    custom_attributes: c.custom_attributes,
    snoozed_until: iso(c.snoozed_until),
    unread_count: Math.min(c.unread_count, 10),
    first_reply_created_at: iso(c.first_reply_created_at),
    priority: c.priority,
    waiting_since: c.waiting_since ?? 0,
    agent_last_seen_at: c.agent_last_seen_at ?? 0,
    contact_last_seen_at: c.contact_last_seen_at ?? 0,
    last_activity_at: c.last_activity_at,
    timestamp: c.last_activity_at,
    created_at: c.created_at,
    updated_at: c.updated_at,
    // Chatwoot's enterprise push data: the applied SLA (null without one), its misses, and the policy.
    ...conversationSlaJson(c, refs),
    sla_policy_id: c.sla_policy_id ?? null,
  };
}

function senderWebhook(m: MessageRecord, ctx: ConversationContext) {
  if (m.sender_id === null) return null;
  if (m.sender_type === 'Contact') {
    const c = ctx.refs.contacts.get(m.sender_id);
    return c ? contactWebhookJson(c, ctx.account) : null;
  }
  if (m.sender_type === 'User') {
    const u: UserRecord | undefined = ctx.refs.users.get(m.sender_id)?.user;
    return u ? { id: u.id, name: u.name, email: u.email, type: 'user' } : null;
  }
  const b = ctx.refs.bots.get(m.sender_id);
  return b ? { id: b.id, name: b.name, type: 'agent_bot' } : null;
}

/** `message_created` / `message_updated` (Message#webhook_data): message_type as a name, created_at ISO. */
export function messageWebhookData(m: MessageRecord, ctx: ConversationContext) {
  return {
    id: m.id,
    content: m.content,
    content_type: m.content_type,
    content_attributes: m.content_attributes,
    additional_attributes: m.additional_attributes,
    message_type: messageTypeName(m.message_type),
    private: m.private,
    source_id: m.source_id,
    created_at: iso(m.created_at),
    sender: senderWebhook(m, ctx),
    inbox: inboxRef(ctx.refs.inboxes.get(m.inbox_id)),
    account: accountRef(ctx.account),
    conversation: conversationPushData(ctx),
    ...(m.attachments?.length ? { attachments: m.attachments.map(attachmentJson) } : {}),
    // Delivery status, which Chatwoot 4.10 leaves out (PR #15908 adds it): receivers need it for API inboxes.
    status: m.status,
  };
}

/** `conversation_*` webhooks: the conversation's push data, with what changed when the event says. */
export function conversationWebhookPayload(event: DomainEvent, ctx: ConversationContext) {
  return {
    event: event.name,
    ...conversationPushData(ctx),
    ...(event.changedAttributes ? { changed_attributes: event.changedAttributes } : {}),
  };
}

/** `message_created` / `message_updated` webhooks. */
export function messageWebhookPayload(event: DomainEvent, m: MessageRecord, ctx: ConversationContext) {
  return { event: event.name, ...messageWebhookData(m, ctx) };
}

export async function contactPayload(event: DomainEvent, contact: ContactRecord) {
  const account = await getAccount(event.accountId);
  if (!account) return undefined;
  return contactWebhookPayload(event, contact, account);
}

/** `contact_created` / `contact_updated` webhooks: the contact's webhook data, moves of its avatar as links. */
export function contactWebhookPayload(event: DomainEvent, contact: ContactRecord, account: Pick<AccountRecord, 'id' | 'name'>) {
  return {
    event: event.name,
    ...contactWebhookJson(contact, account),
    ...(event.changedAttributes
      ? {
          changed_attributes: shownChanges(event.changedAttributes, 'thumbnail', (ref) =>
            contactAvatarUrl({ account_id: contact.account_id, thumbnail: ref }),
          ),
        }
      : {}),
  };
}

/** `conversation_typing_on/off`: the typist, the conversation, and whether it was a private note. */
export async function typingPayload(event: DomainEvent, ctx: ConversationContext) {
  const by = event.signal!.performed_by;
  const typist =
    by?.type === 'user'
      ? { user: await getUser(by.id) }
      : by?.type === 'contact'
        ? { contact: await getContact(event.accountId, by.id) }
        : {};
  return typingWebhookPayload(event, ctx, typist);
}

/** The typing webhook from the typist's record (a user or a contact; none when it is gone or was neither). */
export function typingWebhookPayload(event: DomainEvent, ctx: ConversationContext, typist: { user?: UserRecord; contact?: ContactRecord }) {
  const u = typist.user;
  const user = u
    ? { id: u.id, name: u.name, email: u.email, type: 'user' }
    : typist.contact
      ? contactWebhookJson(typist.contact, ctx.account)
      : null;
  return { event: event.name, user, conversation: conversationPushData(ctx), is_private: event.signal!.is_private };
}

/**
 * `webwidget_triggered` (a visitor opened the widget): the contact inbox, its contact, and the last
 * conversation of that contact inbox, with the widget's `event_info`.
 */
export async function webwidgetPayload(event: DomainEvent) {
  const s = event.signal!;
  const [account, contact, inbox, ctx] = await Promise.all([
    getAccount(event.accountId),
    s.contact_id !== null ? getContact(event.accountId, s.contact_id) : undefined,
    s.inbox_id !== null ? getInbox(event.accountId, s.inbox_id) : undefined,
    s.conversation_id !== null ? conversationContext(event.accountId, s.conversation_id) : undefined,
  ]);
  if (!account || !contact) return undefined;
  return { payload: webwidgetWebhookPayload(event, account, contact, inbox, ctx), inbox };
}

/** The `webwidget_triggered` webhook from the records its signal names. */
export function webwidgetWebhookPayload(
  event: DomainEvent,
  account: AccountRecord,
  contact: ContactRecord,
  inbox: InboxRecord | undefined,
  ctx: ConversationContext | undefined,
) {
  const data = event.signal!.data as { contact_inbox_id?: number; source_id?: string; event_info?: unknown };
  return {
    event: event.name,
    id: data.contact_inbox_id ?? null,
    contact: contactWebhookJson(contact, account),
    inbox: inboxRef(inbox),
    account: accountRef(account),
    current_conversation: ctx ? conversationPushData(ctx) : null,
    source_id: data.source_id ?? null,
    event_info: data.event_info ?? {},
  };
}

export function inboxPayload(event: DomainEvent, inbox: InboxRecord) {
  const { hmac_token: _secret, ...visible } = inbox as InboxRecord & Record<string, unknown>;
  return {
    event: event.name,
    ...visible,
    avatar_url: inboxAvatarUrl(inbox),
    created_at: iso(inbox.created_at as unknown as number),
    updated_at: iso(inbox.updated_at as unknown as number),
    ...(event.changedAttributes
      ? {
          changed_attributes: shownChanges(event.changedAttributes, 'avatar_url', (ref) =>
            inboxAvatarUrl({ account_id: inbox.account_id, avatar_url: ref }),
          ),
        }
      : {}),
  };
}

export { accountRef, inboxRef };
