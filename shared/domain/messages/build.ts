import { nextId } from '#shared/db/ids.ts';
import { getAgentBot } from '#shared/db/repositories/identity.ts';
import { getContact } from '#shared/db/repositories/contacts.ts';
import { invalidField, unprocessable } from '#shared/errors.ts';
import { putObject } from '#shared/storage/objects.ts';
import { storedRef } from '#shared/storage/file-urls.ts';
import type { AccountRecord } from '#shared/model/identity.ts';
import { now } from '#shared/model/time.ts';
import type { ContactRecord } from '#shared/model/contacts.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import { performerOf, type ConversationActor, type ConversationRecord } from '#shared/model/conversations.ts';
import type { AttachmentRecord, ContentType, MessageRecord, MessageType, SenderType } from '#shared/model/messages.ts';
import type { NewMessage, UploadedFile } from './schemas.ts';
import { storedUploads } from '#shared/storage/direct-uploads.ts';

// Building a message from a request (docs/chatwoot.md#creating-a-message): type and sender rules, content attribute
// checks per content type, the Liquid variables of outgoing content, attachments. Nothing here writes the table.

const TYPE_CODES = { incoming: 0, outgoing: 1, activity: 2, template: 3 } as const;

// ContentAttributeValidator: allowed item keys per interactive content type.
const ITEM_KEYS: Partial<Record<ContentType, string[]>> = {
  input_select: ['title', 'value'],
  cards: ['title', 'description', 'media_url', 'actions'],
  form: ['type', 'placeholder', 'label', 'name', 'options', 'default', 'required', 'pattern', 'title', 'pattern_error'],
  article: ['title', 'description', 'link'],
};
const CARD_ACTION_KEYS = ['text', 'type', 'payload', 'uri'];

const isObject = (x: unknown): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x);

export function checkContentAttributes(contentType: ContentType, attrs: Record<string, unknown>): void {
  const allowed = ITEM_KEYS[contentType];
  if (!allowed) return;
  const fail = (message: string) => {
    throw invalidField('content_attributes', message);
  };
  const items = attrs.items;
  if (!Array.isArray(items) || items.length === 0) fail('At least one item is required.');
  const list = items as unknown[];
  if (!list.every(isObject)) fail('Items should be a hash.');
  const objects = list as Record<string, unknown>[];
  const invalid = [...new Set(objects.flatMap((i) => Object.keys(i)).filter((k) => !allowed.includes(k)))];
  if (invalid.length) fail(`contains invalid keys for items : ${invalid.join(', ')}`);
  if (contentType === 'cards') {
    if (objects.some((i) => !Array.isArray(i.actions) || i.actions.length === 0)) fail('contains items missing actions');
    const actions = objects.flatMap((i) => i.actions as unknown[]);
    if (!actions.every(isObject)) fail('actions should be hashes');
    const bad = [
      ...new Set((actions as Record<string, unknown>[]).flatMap((a) => Object.keys(a)).filter((k) => !CARD_ACTION_KEYS.includes(k))),
    ];
    if (bad.length) fail(`contains invalid keys for actions: ${bad.join(', ')}`);
  }
}

export interface LiquidContext {
  account: AccountRecord;
  inbox: InboxRecord;
  conversation: ConversationRecord;
  contact: ContactRecord | undefined;
  agent: { name: string; email?: string } | undefined;
}

const firstName = (n: string | undefined) => (n ?? '').split(/\s+/)[0] ?? '';
const lastName = (n: string | undefined) => {
  const parts = (n ?? '').trim().split(/\s+/);
  return parts.length > 1 ? parts[parts.length - 1] : '';
};

/**
 * Chatwoot renders Liquid variables in outgoing content (`{{contact.name}}`, `{{agent.name}}`, …);
 * text in backticks stays as written, unknown variables render empty, as in Liquid.
 */
export function renderLiquid(content: string, ctx: LiquidContext): string {
  const vars: Record<string, unknown> = {
    'contact.name': ctx.contact?.name,
    'contact.first_name': firstName(ctx.contact?.name),
    'contact.last_name': lastName(ctx.contact?.name),
    'contact.email': ctx.contact?.email,
    'contact.phone_number': ctx.contact?.phone_number,
    'contact.identifier': ctx.contact?.identifier,
    'agent.name': ctx.agent?.name,
    'agent.first_name': firstName(ctx.agent?.name),
    'agent.last_name': lastName(ctx.agent?.name),
    'agent.email': ctx.agent?.email,
    'conversation.display_id': ctx.conversation.id,
    'inbox.name': ctx.inbox.name,
    'account.name': ctx.account.name,
  };
  return content
    .split(/(`[^`]*`)/)
    .map((part) =>
      part.startsWith('`') ? part : part.replace(/\{\{\s*([a-z_]+(?:\.[a-z_]+)+)\s*\}\}/g, (_m, name: string) => String(vars[name] ?? '')),
    )
    .join('');
}

function fileType(contentType: string): AttachmentRecord['file_type'] {
  const top = contentType.split('/')[0];
  return top === 'image' || top === 'audio' || top === 'video' ? top : 'file';
}

async function storeAttachments(accountId: number, messageId: number, files: UploadedFile[]): Promise<AttachmentRecord[]> {
  return Promise.all(
    files.map(async (f) => {
      const id = await nextId('attachment');
      const name = f.filename.replace(/[^\w.-]+/g, '_') || 'file';
      // A direct upload is already stored: the message takes its object as it is.
      const key = f.key ?? `attachments/${accountId}/${messageId}/${id}/${name}`;
      if (!f.key) await putObject(key, f.data ?? Buffer.alloc(0), f.content_type || 'application/octet-stream');
      // The record keeps a reference; views sign a link from it (shared/storage/file-urls.ts).
      const ref = storedRef(key);
      const type = fileType(f.content_type);
      const dot = name.lastIndexOf('.');
      return {
        id,
        message_id: messageId,
        account_id: accountId,
        file_type: type,
        extension: dot > 0 ? name.slice(dot + 1) : null,
        data_url: ref,
        thumb_url: type === 'image' ? ref : '',
        file_size: f.size,
        width: null,
        height: null,
        filename: f.filename,
        content_type: f.content_type,
      };
    }),
  );
}

const splitEmails = (s: string | undefined) =>
  s
    ? s
        .split(',')
        .map((e) => e.trim())
        .filter(Boolean)
    : undefined;

export interface MessageTarget {
  account: AccountRecord;
  inbox: InboxRecord;
  conversation: ConversationRecord;
}

/** What a channel's incoming message adds to a request's message (shared/domain/channels/receive.ts). */
export interface MessageOptions {
  /** The id to give the message (a channel claims its provider id for it before writing). */
  id?: number;
  /** Attachments without a file (a shared location, a contact card), as Chatwoot stores them. */
  attachments?: Omit<AttachmentRecord, 'id' | 'message_id' | 'account_id'>[];
  /** Runs once the message is built, before anything is written; a throw writes nothing. */
  beforeWrite?: (conversation: ConversationRecord, message: MessageRecord) => Promise<void>;
  /**
   * A provider's message is stored even when it ends up with neither text nor file (its media could not be
   * downloaded): Chatwoot keeps it so, and the contact's message is not lost.
   */
  allowEmpty?: boolean;
}

/**
 * The message a request creates: sender and type rules (incoming only on API inboxes, from the
 * conversation's contact; outgoing from the caller or a named agent bot), checks, rendering, uploads.
 */
export async function buildMessage(
  target: MessageTarget,
  actor: ConversationActor,
  input: NewMessage,
  opts: MessageOptions = {},
): Promise<MessageRecord> {
  const { account, inbox, conversation } = target;
  const typeName = actor.type === 'contact' ? 'incoming' : (input.message_type ?? 'outgoing');
  if (typeName === 'incoming' && inbox.channel_type !== 'Channel::Api' && actor.type !== 'contact') {
    throw invalidField('message_type', 'Incoming messages are only allowed in Api inboxes');
  }
  const contentType = input.content_type ?? 'text';
  const contentAttributes: Record<string, unknown> = { ...(input.content_attributes ?? {}) };
  checkContentAttributes(contentType, contentAttributes);
  const given = input.attachments ?? [];
  const signed = given.filter((a): a is string => typeof a === 'string');
  // Signed ids name direct uploads made for this conversation (`…/conversations/{id}/direct_uploads`).
  const files = [
    ...given.filter((a): a is UploadedFile => typeof a !== 'string'),
    ...(signed.length ? await storedUploads({ account_id: account.id, conversation_id: conversation.id }, signed) : []),
  ];
  const extra = opts.attachments ?? [];
  if (
    (input.content === undefined || input.content === null || input.content === '') &&
    !files.length &&
    !extra.length &&
    contentType === 'text' &&
    !opts.allowEmpty
  ) {
    throw unprocessable([{ field: 'content', message: 'is required unless attachments are sent', code: 'required' }]);
  }

  let senderType: SenderType | null;
  let senderId: number | null;
  if (typeName === 'incoming') {
    senderType = 'Contact';
    senderId = conversation.contact_id;
  } else if (input.sender_type === 'AgentBot' && input.sender_id !== undefined) {
    const bot = await getAgentBot(input.sender_id);
    if (!bot || (bot.account_id !== null && bot.account_id !== account.id))
      throw invalidField('sender_id', 'is not an agent bot of this account');
    senderType = 'AgentBot';
    senderId = bot.id;
  } else if (actor.type === 'user') {
    senderType = 'User';
    senderId = actor.user.id;
  } else if (actor.type === 'agent_bot') {
    senderType = 'AgentBot';
    senderId = actor.bot.id;
  } else if (actor.type === 'contact') {
    senderType = 'Contact';
    senderId = actor.contactId;
  } else {
    // Automation messages have no sender (docs/chatwoot.md#actions).
    senderType = null;
    senderId = null;
  }

  let content = input.content ?? null;
  if (content && (typeName === 'outgoing' || typeName === 'template') && content.includes('{{')) {
    const contact = await getContact(account.id, conversation.contact_id);
    const agent =
      actor.type === 'user'
        ? { name: actor.user.name, email: actor.user.email }
        : actor.type === 'agent_bot'
          ? { name: actor.bot.name }
          : undefined;
    content = renderLiquid(content, { account, inbox, conversation, contact, agent });
  }

  if (input.external_created_at !== undefined) contentAttributes.external_created_at = input.external_created_at;
  if (inbox.channel_type === 'Channel::Email') {
    for (const f of ['cc_emails', 'bcc_emails', 'to_emails'] as const) {
      const list = splitEmails(input[f]);
      if (list) contentAttributes[f] = list;
    }
  }
  if (actor.type === 'automation_rule') contentAttributes.automation_rule_id = actor.ruleId;
  const additional: Record<string, unknown> = {};
  if (input.template_params) additional.template_params = input.template_params;
  if (input.campaign_id !== undefined) additional.campaign_id = input.campaign_id;

  // Above the conversation's last message, so that it lists after it (shared/db/ids.ts).
  const id = opts.id ?? (await nextId('message', conversation.last_message?.id ?? 0));
  const t = now();
  return {
    id,
    account_id: account.id,
    inbox_id: inbox.id,
    conversation_id: conversation.id,
    message_type: TYPE_CODES[typeName] as MessageType,
    content,
    content_type: contentType,
    content_attributes: contentAttributes,
    status: 'sent',
    // Private notes are outgoing messages that never reach the contact.
    private: typeName === 'incoming' ? false : (input.private ?? false),
    source_id: input.source_id ?? null,
    sender_type: senderType,
    sender_id: senderId,
    external_source_ids: {},
    additional_attributes: additional,
    processed_message_content: content,
    sentiment: {},
    attachments: [
      ...(files.length ? await storeAttachments(account.id, id, files) : []),
      ...(await Promise.all(
        extra.map(async (a) => ({ ...a, id: await nextId('attachment'), message_id: id, account_id: account.id }) as AttachmentRecord),
      )),
    ],
    ...(input.echo_id ? { echo_id: input.echo_id } : {}),
    created_at: t,
    updated_at: t,
    performed_by: performerOf(actor),
  };
}

/**
 * What a new message does to its conversation besides activity times (docs/chatwoot.md#creating-a-message): an
 * incoming message counts as unread, starts the wait and reopens a snoozed or resolved conversation (pending when the
 * inbox has a bot; not for a blocked contact); a human's public reply is the first reply and ends the wait.
 */
export function messageEffects(
  c: ConversationRecord,
  m: MessageRecord,
  inbox: InboxRecord,
  contactBlocked: boolean,
): Partial<ConversationRecord> {
  if (m.message_type === 0) {
    const reopen = !contactBlocked && (c.status === 'snoozed' || c.status === 'resolved');
    return {
      unread_count: c.unread_count + 1,
      last_incoming_at: m.created_at,
      waiting_since: c.waiting_since ?? m.created_at,
      ...(reopen ? { status: c.status === 'resolved' && inbox.agent_bot_id ? 'pending' : 'open', snoozed_until: null } : {}),
    };
  }
  if (m.message_type === 1 && !m.private && m.sender_type === 'User') {
    return { first_reply_created_at: c.first_reply_created_at ?? m.created_at, waiting_since: null };
  }
  return {};
}

/** A system note in the conversation ("Conversation was marked resolved by …"), without a sender. */
export async function activityMessage(c: ConversationRecord, content: string, actor: ConversationActor | null): Promise<MessageRecord> {
  const t = now();
  return {
    id: await nextId('message', c.last_message?.id ?? 0),
    account_id: c.account_id,
    inbox_id: c.inbox_id,
    conversation_id: c.id,
    message_type: 2,
    content,
    content_type: 'text',
    content_attributes: {},
    status: 'sent',
    private: false,
    source_id: null,
    sender_type: null,
    sender_id: null,
    external_source_ids: {},
    additional_attributes: {},
    processed_message_content: content,
    sentiment: {},
    attachments: [],
    created_at: t,
    updated_at: t,
    performed_by: actor ? performerOf(actor) : null,
  };
}
