import { getMessage, listMessages, updateMessageFields, writeMessage, type MessageFieldChange } from '#shared/db/repositories/messages.ts';
import { getInbox } from '#shared/db/repositories/inboxes.ts';
import { getConversation } from '#shared/db/repositories/conversations.ts';
import { getContact } from '#shared/db/repositories/contacts.ts';
import type { Actor } from '#shared/model/actor.ts';
import { forbidden, invalidField, notFound } from '#shared/errors.ts';
import type { AccountRecord } from '#shared/model/identity.ts';
import { now } from '#shared/model/time.ts';
import { contactPushJson } from '../contacts/view.ts';
import { touchLastActivity } from '../contacts/service.ts';
import { visibleConversation } from '../conversations/access.ts';
import { mutate, quietly, touch } from '../conversations/mutation.ts';
import { performerOf, type ConversationActor, type ConversationRecord } from '#shared/model/conversations.ts';
import { loadRefs, messageJson, userPushJson } from '../conversations/view.ts';
import { buildMessage, messageEffects, type MessageOptions } from './build.ts';
import type { DirectUpload, MessageUpdate, TranslateRequest } from './change-schemas.ts';
import type { NewMessage } from './schemas.ts';
import { listHooks } from '#shared/db/repositories/integration-hooks.ts';
import { translateText } from '../integrations/google-translate.ts';
import { createDirectUpload } from '#shared/storage/direct-uploads.ts';
import type { MessageRecord } from '#shared/model/messages.ts';
import { deleteObjects } from '#shared/storage/objects.ts';
import { fileScope, storedKeyOf } from '#shared/storage/file-urls.ts';

/** A contact's `last_activity_at` is kept to this many seconds. */
export const CONTACT_ACTIVITY_GRANULARITY_S = 60;

/**
 * Chatwoot marks the contact active on every incoming message (and announces contact_updated); here a
 * contact active less than a minute ago stays as it is, so a conversation's back-and-forth does not
 * rewrite the contact and its listing (3 write units) on every message.
 */
export const activityIsStale = (contact: { last_activity_at: number | null }, at: number) =>
  contact.last_activity_at === null || at - contact.last_activity_at >= CONTACT_ACTIVITY_GRANULARITY_S;

const inboxOf = async (c: ConversationRecord) => {
  const inbox = await getInbox(c.account_id, c.inbox_id);
  if (!inbox) throw notFound('Inbox');
  return inbox;
};

/**
 * Adds a message to a conversation the caller may act on (the public interface passes a contact actor),
 * with its effects on the conversation in the same transaction.
 */
export async function addMessage(
  account: AccountRecord,
  actor: ConversationActor,
  conversation: ConversationRecord,
  input: NewMessage,
  opts: MessageOptions = {},
) {
  const inbox = await inboxOf(conversation);
  const message = await buildMessage({ account, inbox, conversation }, actor, input, opts);
  await opts.beforeWrite?.(conversation, message);
  const contact = message.message_type === 0 ? await getContact(account.id, conversation.contact_id) : undefined;
  const blocked = contact?.blocked ?? false;
  const { conversation: after } = await mutate(conversation, (c) => ({
    next: touch(c, actor, messageEffects(c, message, inbox, blocked)),
    messages: [message],
    result: undefined,
  }));
  if (contact && activityIsStale(contact, message.created_at)) await touchLastActivity(account.id, contact.id, message.created_at);
  return { conversation: after, message };
}

export async function createMessage(account: AccountRecord, actor: Actor, displayId: number, input: NewMessage) {
  const c = await visibleConversation(account.id, actor, displayId, true);
  const { message } = await addMessage(account, actor, c, input);
  const refs = await loadRefs(account.id, actor, [], [message]);
  return messageJson(message, refs, input.echo_id);
}

/**
 * `POST …/conversations/{id}/direct_uploads {blob}` (Chatwoot's Conversations::DirectUploadsController):
 * an upload only this conversation's messages can attach.
 */
export async function createConversationDirectUpload(account: AccountRecord, actor: Actor, displayId: number, input: DirectUpload) {
  const c = await visibleConversation(account.id, actor, displayId);
  return createDirectUpload({ account_id: account.id, conversation_id: c.id }, input.blob);
}

export interface MessageQuery {
  before?: string;
  after?: string;
  filter_internal_messages?: string;
}

const cursor = (field: string, raw: string | undefined) => {
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d{1,15}$/.test(raw)) throw invalidField(field, 'must be a message id');
  return Number(raw);
};

/**
 * `GET .../messages` (docs/chatwoot.md#listing-messages): the latest 20 (or 20 before `before`), up to 100 after
 * `after`, up to 1000 in `after`..`before`; ascending.
 */
export async function listConversationMessages(account: AccountRecord, actor: Actor, displayId: number, q: MessageQuery) {
  const c = await visibleConversation(account.id, actor, displayId);
  const before = cursor('before', q.before);
  const after = cursor('after', q.after);
  const limit = after !== undefined ? (before !== undefined ? 1000 : 100) : 20;
  let messages = await listMessages(account.id, c.id, { before, after, afterInclusive: before !== undefined, limit });
  if (q.filter_internal_messages) messages = messages.filter((m) => !m.private && m.message_type !== 2);
  const refs = await loadRefs(account.id, actor, [c], messages);
  const contact = refs.contacts.get(c.contact_id);
  const assignee = c.assignee_id !== null ? refs.users.get(c.assignee_id) : undefined;
  const iso = (t: number | null) => (t === null ? null : new Date(t * 1000).toISOString());
  return {
    meta: {
      labels: c.labels,
      additional_attributes: c.additional_attributes,
      contact: contact ? contactPushJson(contact) : null,
      ...(assignee ? { assignee: userPushJson(assignee) } : {}),
      agent_last_seen_at: iso(c.agent_last_seen_at),
      assignee_last_seen_at: iso(c.assignee_last_seen_at),
    },
    payload: messages.map((m) => messageJson(m, refs)),
  };
}

async function messageOf(accountId: number, c: ConversationRecord, messageId: number) {
  const m = await getMessage(accountId, c.id, messageId);
  if (!m) throw notFound('Message');
  return m;
}

/**
 * Writes a changed message. When the conversation shows it (last message copies), the copy is refreshed
 * in the same transaction, without making it a conversation change.
 */
export async function saveMessage(c: ConversationRecord, m: MessageRecord) {
  const shown = (x: MessageRecord | null) => x?.id === m.id;
  if (!shown(c.last_message) && !shown(c.last_non_activity_message)) {
    await writeMessage(m);
    return;
  }
  await mutate(c, (cur) => ({
    next: quietly(cur, {
      last_message: shown(cur.last_message) ? m : cur.last_message,
      last_non_activity_message: shown(cur.last_non_activity_message) ? m : cur.last_non_activity_message,
    }),
    rewrites: [m],
    result: undefined,
  }));
}

/**
 * Changes some fields of a stored message in place, only while its status allows (AP80): writers that race on one
 * message (a provider's status, the send's outcome, a retry) never undo one another. When the conversation shows
 * the message, its copy is refreshed as `saveMessage` does, from a read of the message made after the conversation's
 * (each retried write reads both again), so the copy a race leaves is the latest. `c` is the conversation when the caller has it (read when needed
 * otherwise). The message as stored after the change, or undefined when the change did not apply.
 */
export async function changeMessage(
  ref: Pick<MessageRecord, 'account_id' | 'conversation_id' | 'id'>,
  change: MessageFieldChange,
  c?: ConversationRecord,
): Promise<MessageRecord | undefined> {
  const m = await updateMessageFields(ref, change);
  if (!m) return undefined;
  const first = c ?? (await getConversation(ref.account_id, ref.conversation_id, true));
  const shown = (x: MessageRecord | null) => x?.id === m.id;
  if (!first || (!shown(first.last_message) && !shown(first.last_non_activity_message))) return m;
  await mutate(first, async (cur) => {
    // Read after the conversation: a copy another writer put there before is never newer than this read.
    const latest = await getMessage(ref.account_id, ref.conversation_id, ref.id, true);
    if (!latest || (!shown(cur.last_message) && !shown(cur.last_non_activity_message))) return { result: undefined };
    return {
      next: quietly(cur, {
        last_message: shown(cur.last_message) ? latest : cur.last_message,
        last_non_activity_message: shown(cur.last_non_activity_message) ? latest : cur.last_non_activity_message,
      }),
      result: undefined,
    };
  });
  return m;
}

/**
 * `PATCH .../messages/{id}` (docs/chatwoot.md#updating-and-deleting-a-message): delivery status reports of
 * API-channel integrations. `read` never goes back to `delivered`; `external_error` is kept only with `failed`.
 */
export async function updateMessageStatus(
  account: AccountRecord,
  actor: Actor,
  displayId: number,
  messageId: number,
  input: MessageUpdate,
) {
  const c = await visibleConversation(account.id, actor, displayId, true);
  const inbox = await inboxOf(c);
  if (inbox.channel_type !== 'Channel::Api') throw forbidden('Message status update is only allowed for API inboxes');
  const m = await messageOf(account.id, c, messageId);
  const status = input.status;
  let result = m;
  if (status && !(m.status === 'read' && status === 'delivered')) {
    const attrs = { ...m.content_attributes };
    if (status === 'failed' && input.external_error) attrs.external_error = input.external_error;
    else delete attrs.external_error;
    result = { ...m, status, content_attributes: attrs, updated_at: now(), performed_by: performerOf(actor) };
    await saveMessage(c, result);
  }
  return messageJson(result, await loadRefs(account.id, actor, [], [result]));
}

/**
 * `POST …/messages/{id}/translate {target_language}` (Chatwoot's MessagesController#translate): the
 * message's text in that language through the account's Google Translate integration, kept in
 * `content_attributes.translations` so a second request reads it back; `{content: null}` without the
 * integration or text.
 */
export async function translateMessage(
  account: AccountRecord,
  actor: Actor,
  displayId: number,
  messageId: number,
  input: TranslateRequest,
) {
  const c = await visibleConversation(account.id, actor, displayId, true);
  const m = await messageOf(account.id, c, messageId);
  const target = input.target_language;
  const known = (m.content_attributes.translations as Record<string, string> | undefined)?.[target];
  if (known) return { content: known };
  const hook = (await listHooks(account.id)).find((h) => h.app_id === 'google_translate' && h.status === 'enabled');
  const email =
    m.content_type === 'incoming_email' &&
    typeof (m.content_attributes.email as { html_content?: { full?: unknown } })?.html_content?.full === 'string';
  const text = email ? String((m.content_attributes.email as { html_content: { full: string } }).html_content.full) : m.content;
  if (!hook || !text) return { content: null };
  const translated = await translateText(hook.settings, text, target, email ? 'text/html' : 'text/plain');
  if (translated) {
    // Read again: the call took a while, and the message may have changed meanwhile.
    const fresh = await messageOf(account.id, c, messageId);
    const translations = { ...((fresh.content_attributes.translations as Record<string, string> | undefined) ?? {}), [target]: translated };
    await saveMessage(c, {
      ...fresh,
      content_attributes: { ...fresh.content_attributes, translations },
      updated_at: now(),
      performed_by: performerOf(actor),
    });
  }
  return { content: translated };
}

/** Deletes the stored files of messages of the account (their references outside its attachments are not its files). */
export async function deleteMessageFiles(accountId: number, messages: Pick<MessageRecord, 'attachments'>[]): Promise<void> {
  const scope = fileScope.attachment(accountId);
  const files = new Set(
    messages.flatMap((m) => (m.attachments ?? []).flatMap((a) => [storedKeyOf(a.data_url, true), storedKeyOf(a.thumb_url, true)])),
  );
  await deleteObjects([...files].filter((k): k is string => !!k && scope.some((p) => k.startsWith(p))));
}

/**
 * `DELETE .../messages/{id}`: soft delete (docs/chatwoot.md#updating-and-deleting-a-message); attachments go, the
 * message stays.
 */
export async function deleteMessage(account: AccountRecord, actor: Actor, displayId: number, messageId: number) {
  const c = await visibleConversation(account.id, actor, displayId, true);
  const m = await messageOf(account.id, c, messageId);
  // Chatwoot destroys a deleted message's attachments: its files go before the record forgets them (a
  // failure here leaves the message as it was, to delete again), so no link handed out serves them after.
  await deleteMessageFiles(account.id, [m]);
  const deleted: MessageRecord = {
    ...m,
    content: 'This message was deleted',
    processed_message_content: 'This message was deleted',
    content_type: 'text',
    content_attributes: { deleted: true },
    attachments: [],
    updated_at: now(),
    performed_by: performerOf(actor),
  };
  await saveMessage(c, deleted);
  return messageJson(deleted, await loadRefs(account.id, actor, [], [deleted]));
}

/**
 * An API inbox's callback refused or missed a message's event: the message is marked `failed` with the
 * reason in `external_error`, as Chatwoot's webhook trigger does (which announces `message_updated`).
 * Nothing changes when it already says so, so a callback that refuses that update too ends the loop.
 */
export async function markCallbackFailed(accountId: number, displayId: number, messageId: number, error: string): Promise<boolean> {
  const c = await getConversation(accountId, displayId, true);
  const m = c ? await getMessage(accountId, displayId, messageId) : undefined;
  if (!c || !m) return false;
  const reason = error.slice(0, 1000);
  if (m.status === 'failed' && m.content_attributes?.external_error === reason) return false;
  await saveMessage(c, {
    ...m,
    status: 'failed',
    content_attributes: { ...m.content_attributes, external_error: reason },
    updated_at: now(),
  });
  return true;
}
