import { getAccount } from '#shared/db/repositories/identity.ts';
import { findContactIdBy, findContactInbox, getContact, type UniqueField } from '#shared/db/repositories/contacts.ts';
import { getConversation, getConversations, listContactConversationLinks } from '#shared/db/repositories/conversations.ts';
import { getMessage } from '#shared/db/repositories/messages.ts';
import { claimProviderMessage, findProviderMessage, type ProviderMessageRef } from '#shared/db/repositories/channels.ts';
import { isTaken } from '#shared/errors.ts';
import { log } from '#shared/log.ts';
import type { ContactInboxRecord, ContactRecord } from '#shared/model/contacts.ts';
import type { ConversationActor, ConversationRecord } from '#shared/model/conversations.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import type { MessageRecord } from '#shared/model/messages.ts';
import { isSuspended } from '../accounts/suspension.ts';
import { ensureContactInboxOf } from '../contacts/contact-inboxes.ts';
import { createContact, updateContact } from '../contacts/service.ts';
import { startConversation } from '../conversations/service.ts';
import { addMessage } from '../messages/service.ts';
import type { MessageOptions } from '../messages/build.ts';
import type { UploadedFile } from '../messages/schemas.ts';
import { randomName } from '../public/service.ts';
import { isNumberName, numberName } from './phone.ts';
import type { IncomingContact, IncomingFile, IncomingMessage } from './types.ts';

// A contact's message arriving through a channel (docs/channels.md#incoming), Chatwoot's rules for every channel:
// the contact inbox by source id, else the account's contact with that identifier, email or phone, else a new
// contact; the conversation by `lock_to_single_conversation`; the message created once per provider id. The
// message then has the effects of any incoming message (messages/build.ts: reopen, pending with a bot, unread).

/** A provider id already stored (the message exists), or the claim of an attempt that stopped before its message. */
export type Known = { duplicate: true } | { duplicate: false; stale?: ProviderMessageRef };

class ClaimedElsewhere extends Error {}

/** Whether the provider id is stored in the inbox already: read before downloading anything. */
export async function knownMessage(inbox: InboxRecord, claimKey: string): Promise<Known> {
  const ref = await findProviderMessage(inbox.id, claimKey);
  if (!ref) return { duplicate: false };
  const m = await getMessage(ref.account_id, ref.conversation_id, ref.message_id);
  return m ? { duplicate: true } : { duplicate: false, stale: ref };
}

const IDENTIFY_BY: UniqueField[] = ['identifier', 'email', 'phone_number'];

/** The provider's profile of a contact not yet known (ChannelRoom.profile): asked once, before a contact is made. */
export type ProfileLookup = () => Promise<Partial<IncomingContact> | undefined>;

/** Chatwoot's ContactInboxWithContactBuilder: the contact inbox of the source id, else the account's contact, else a new one. */
async function contactFor(
  inbox: InboxRecord,
  given: IncomingContact,
  profile?: ProfileLookup,
): Promise<{ contact: ContactRecord; contactInbox: ContactInboxRecord }> {
  for (const sourceId of [...(given.aliases ?? []), given.sourceId]) {
    const ci = await findContactInbox(inbox.id, sourceId);
    const contact = ci && (await getContact(ci.account_id, ci.contact_id));
    if (ci && contact) return { contact, contactInbox: ci };
  }
  const who: IncomingContact = profile ? { ...given, ...(await profile()), sourceId: given.sourceId } : given;
  for (const field of IDENTIFY_BY) {
    const value = who[field];
    if (!value) continue;
    const id = await findContactIdBy(inbox.account_id, field, value);
    const contact = id !== undefined ? await getContact(inbox.account_id, id) : undefined;
    if (contact) return { contact, contactInbox: await ensureContactInboxOf(contact, inbox, who.sourceId) };
  }
  const { contact, contactInbox } = await createContact(
    inbox.account_id,
    {
      name: who.name || (who.nameNumber ? numberName(who.nameNumber) : randomName()),
      phone_number: who.phone_number ?? undefined,
      email: who.email ?? undefined,
      identifier: who.identifier ?? undefined,
      additional_attributes: who.additional_attributes,
      source_id: who.sourceId,
    },
    inbox,
  );
  return { contact, contactInbox: contactInbox! };
}

/**
 * A contact named only by its number (raw or formatted) takes the provider's profile name (Chatwoot's
 * update_contact_with_profile_name); a name that is itself the number changes nothing.
 */
async function takeProfileName(contact: ContactRecord, who: IncomingContact): Promise<void> {
  if (!who.name || !who.phone_number || contact.name === who.name) return;
  if (!isNumberName(contact.name, who.phone_number) || isNumberName(who.name, who.phone_number)) return;
  await updateContact(contact.account_id, contact.id, { name: who.name });
}

/**
 * The conversation the message joins: with `lock_to_single_conversation` the contact inbox's latest, otherwise its
 * latest that is not resolved; none → a new one. A stale claim's conversation is the one its attempt chose.
 */
async function existingConversation(
  inbox: InboxRecord,
  ci: ContactInboxRecord,
  stale: ProviderMessageRef | undefined,
): Promise<ConversationRecord | undefined> {
  if (stale) {
    const c = await getConversation(stale.account_id, stale.conversation_id, true);
    if (c && c.inbox_id === inbox.id) return c;
  }
  const ids = (await listContactConversationLinks(ci.account_id, ci.contact_id))
    .filter((l) => l.inbox_id === inbox.id && l.source_id === ci.source_id)
    .map((l) => l.conversation_id)
    .sort((a, b) => b - a);
  if (!ids.length) return undefined;
  if (inbox.lock_to_single_conversation) return getConversation(ci.account_id, ids[0], true);
  const found = await getConversations(ci.account_id, ids);
  const open = found.find((c) => c && c.status !== 'resolved');
  return open ? getConversation(ci.account_id, open.id, true) : undefined;
}

const asUploads = (files: IncomingFile[]): UploadedFile[] =>
  files.map((f) => ({ filename: f.filename, content_type: f.content_type, size: f.data.length, data: f.data }));

export interface Received {
  created: boolean;
  message?: MessageRecord;
  conversation?: ConversationRecord;
}

/**
 * Stores a contact's message once. The provider id is claimed (a sentinel naming the message) just before the
 * message is written, so a retried webhook finds it and creates nothing; an attempt that stopped between the two
 * left a claim without its message, which the next attempt takes over.
 */
export async function receiveMessage(
  inbox: InboxRecord,
  msg: IncomingMessage,
  files: IncomingFile[],
  known?: Known,
  profile?: ProfileLookup,
): Promise<Received> {
  const claimKey = msg.claimKey ?? msg.providerId;
  const state = known ?? (await knownMessage(inbox, claimKey));
  if (state.duplicate) return { created: false };
  const account = await getAccount(inbox.account_id);
  // A suspended account takes nothing in (the API refuses it everywhere too).
  if (!account || isSuspended(account)) return { created: false };
  const input = {
    content: msg.content,
    ...(msg.contentType ? { content_type: msg.contentType } : {}),
    content_attributes: msg.contentAttributes,
    source_id: msg.providerId,
    attachments: asUploads(files),
  };
  // A reply names the message it answers by the provider's id: Chatwoot keeps both ids when that message is in the
  // conversation, neither otherwise (InReplyToMessageBuilder).
  const external = msg.contentAttributes?.in_reply_to_external_id;
  const replied = typeof external === 'string' ? await findProviderMessage(inbox.id, msg.inReplyToClaimKey ?? external) : undefined;
  const options: MessageOptions = {
    attachments: msg.places,
    // A media message whose file could not be had is still the contact's message (Chatwoot stores it without the file).
    allowEmpty: true,
    beforeWrite: async (c, m) => {
      if (typeof external === 'string') {
        const found = replied && replied.conversation_id === c.id;
        m.content_attributes = {
          ...m.content_attributes,
          in_reply_to: found ? replied.message_id : null,
          in_reply_to_external_id: found ? external : null,
        };
      }
      const ref = { account_id: c.account_id, conversation_id: c.id, message_id: m.id };
      if (!(await claimProviderMessage(inbox.id, claimKey, ref, state.duplicate ? undefined : state.stale?.message_id))) {
        throw new ClaimedElsewhere();
      }
    },
  };
  try {
    // The room chose the conversation (email threading): the message is its contact's.
    const chosen = msg.conversation;
    if (chosen && chosen !== 'new') {
      const { conversation, message } = await addMessage(
        account,
        { type: 'contact', contactId: chosen.contact_id },
        chosen,
        input,
        options,
      );
      return { created: true, message, conversation };
    }
    let target: { contact: ContactRecord; contactInbox: ContactInboxRecord };
    try {
      target = await contactFor(inbox, msg.contact, profile);
    } catch (err) {
      // The same contact made a moment ago by a concurrent message (another group of the queue): found now.
      if (!isTaken(err)) throw err;
      target = await contactFor(inbox, msg.contact, profile);
    }
    if (!msg.echo)
      await takeProfileName(target.contact, msg.contact).catch((error) => log.warn('contact not renamed', { error: String(error) }));
    const actor: ConversationActor = msg.echo ? { type: 'channel', inboxId: inbox.id } : { type: 'contact', contactId: target.contact.id };
    const existing =
      chosen === 'new' ? undefined : await existingConversation(inbox, target.contactInbox, state.duplicate ? undefined : state.stale);
    if (existing) {
      const { conversation, message } = await addMessage(account, actor, existing, input, options);
      return { created: true, message, conversation };
    }
    const { conversation, message } = await startConversation(
      account,
      actor,
      { inbox, ...target },
      {
        additional_attributes: msg.conversationAttributes,
        message: input,
        messageOptions: options,
      },
    );
    return { created: true, message, conversation };
  } catch (err) {
    // Another attempt of the same provider message holds the claim: it writes the message.
    if (err instanceof ClaimedElsewhere) return { created: false };
    throw err;
  }
}
