import { findContactInbox, getContact } from '#shared/db/repositories/contacts.ts';
import { getConversation, listContactConversationLinks } from '#shared/db/repositories/conversations.ts';
import { listInboxMemberIds } from '#shared/db/repositories/inboxes.ts';
import { listLabels } from '#shared/db/repositories/labels.ts';
import { forbidden, notFound, ServiceError } from '#shared/errors.ts';
import { agentsJson } from '../agents/view.ts';
import type { ContactInboxRecord, ContactRecord } from '#shared/model/contacts.ts';
import { createContact, destroyCustomAttributes } from '../contacts/service.ts';
import { markContactInboxVerified } from '../contacts/contact-inboxes.ts';
import type { ConversationRecord } from '#shared/model/conversations.ts';
import { mutate, touch } from '../conversations/mutation.ts';
import { applyLabels, changeStatus, markSeenByContact, startConversation } from '../conversations/service.ts';
import { announceTyping } from '../conversations/typing.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import { addMessage } from '../messages/service.ts';
import type { NewMessage } from '../messages/schemas.ts';
import { requestMail } from '../mail/outbox.ts';
import { addressScope, takeSlots, throttleEmail, THROTTLES } from '../throttles.ts';
import { widgetCampaignsJson } from './campaigns.ts';
import { storedUploads } from '#shared/storage/direct-uploads.ts';
import type { AccountRecord } from '#shared/model/identity.ts';
import { assertMayChangeIdentity, checkIdentity, contactActor, proves } from '../public/access.ts';
import { beforeCursor, chatMessages, refsFor, submitAnswer } from '../public/service.ts';
import { identifyContact, type IdentifyOptions, type Identity } from '../contacts/identify.ts';
import { browserOf, languageOf } from './browser.ts';
import type { WidgetContact, WidgetMessageUpdate, WidgetNewConversation, WidgetNewMessage } from './schemas.ts';
import { issueToken, visitorSession, websiteTokenOf } from './service.ts';
import { widgetContactJson, widgetConversationJson, widgetMessageJson, widgetNewConversationJson } from './view.ts';

// The widget's chat (Chatwoot's `api/v1/widget/{conversations,messages,contact,labels,inbox_members}`).
// The visitor is the contact inbox its auth token names; it sees only the conversations of its contact
// in this inbox (all of them once its identity is verified, otherwise those started on its own contact
// inbox), and the widget always works on the newest of them. Every change goes through the account
// interface's services with the contact as actor, so it makes the same items and the same events.

/** What a widget request carries besides its body. */
export interface WidgetRequest {
  websiteToken: string | undefined;
  authToken: string | undefined;
  userAgent?: string;
  acceptLanguage?: string;
  /** The client's address (the transcript mail is throttled per address). */
  address?: string;
}

type Visitor = Awaited<ReturnType<typeof visitorSession>>;

const PAGE = 20;

/** The visitor's conversations in this inbox, oldest first (links only; the records are read on demand). */
async function conversationIds(ci: ContactInboxRecord): Promise<number[]> {
  const links = await listContactConversationLinks(ci.account_id, ci.contact_id);
  return links
    .filter((l) => l.inbox_id === ci.inbox_id && (ci.hmac_verified || l.source_id === ci.source_id))
    .map((l) => l.conversation_id)
    .sort((a, b) => a - b);
}

/** The newest conversation of the visitor, or undefined; `consistent` for the read a change starts from. */
async function currentConversation(ci: ContactInboxRecord, consistent = false): Promise<ConversationRecord | undefined> {
  const ids = await conversationIds(ci);
  const id = ids.at(-1);
  if (id === undefined) return undefined;
  const c = await getConversation(ci.account_id, id, consistent);
  return c && c.contact_id === ci.contact_id && c.inbox_id === ci.inbox_id ? c : undefined;
}

async function requireConversation(ci: ContactInboxRecord): Promise<ConversationRecord> {
  const c = await currentConversation(ci, true);
  if (!c) throw notFound('Conversation');
  return c;
}

async function contactOf(ci: ContactInboxRecord): Promise<ContactRecord> {
  const contact = await getContact(ci.account_id, ci.contact_id, true);
  if (!contact) throw notFound('Contact');
  return contact;
}

/**
 * The visitor after Chatwoot's ContactIdentifyAction: its contact (the one it was merged into, when its
 * identifier, email or phone belonged to another) and its contact inbox there (same source id, same token).
 */
async function identifyVisitor(
  inbox: InboxRecord,
  ci: ContactInboxRecord,
  contact: ContactRecord,
  input: Identity,
  opts: IdentifyOptions = {},
): Promise<{ ci: ContactInboxRecord; contact: ContactRecord }> {
  const updated = await identifyContact(ci.account_id, contact, input, { ...opts, identifierOnly: !!inbox.hmac_mandatory });
  const moved = updated.id !== ci.contact_id ? await findContactInbox(ci.inbox_id, ci.source_id) : undefined;
  return { ci: moved ?? ci, contact: updated };
}

/** Chatwoot's `additional_attributes` of a conversation the widget starts: the visitor's browser and page. */
function pageAttributes(req: WidgetRequest, page: { timestamp?: string | null; referer_url?: string | null } | null | undefined) {
  return {
    browser_language: languageOf(req.acceptLanguage) ?? null,
    browser: browserOf(req.userAgent),
    initiated_at: { timestamp: page?.timestamp ?? null },
    referer: page?.referer_url ?? null,
  };
}

// ── conversations ──────────────────────────────────────────────────────────────────────────────────

/** `GET /conversations`: the visitor's newest conversation (`{}` when it has none). */
export async function showWidgetConversation(req: WidgetRequest) {
  const { ci } = await visitorSession(req.websiteToken, req.authToken);
  const c = await currentConversation(ci);
  return c ? widgetConversationJson(c) : {};
}

/**
 * `POST /conversations` (the pre-chat form): saves what the visitor told about itself (a name only when
 * the contact has no email, phone or identifier yet), then starts a conversation with the first message.
 */
export async function createWidgetConversation(req: WidgetRequest, input: WidgetNewConversation) {
  const session = await visitorSession(req.websiteToken, req.authToken);
  const { inbox, account } = session;
  let { ci } = session;
  let contact = await contactOf(ci);
  if (input.contact) {
    // An unproven visitor of an HMAC-mandatory inbox still chats; who it says it is is not taken.
    const trusted = !inbox.hmac_mandatory || ci.hmac_verified;
    const email = trusted ? input.contact.email?.toLowerCase() : undefined;
    const named = !contact.email && !contact.phone_number && !contact.identifier;
    ({ ci, contact } = await identifyVisitor(
      inbox,
      ci,
      contact,
      {
        email,
        phone_number: trusted ? input.contact.phone_number : undefined,
        name: named ? (input.contact.name ?? email?.split('@')[0]) : undefined,
        custom_attributes: input.contact.custom_attributes,
      },
      { retainName: true },
    ));
  }
  const { conversation, message } = await startConversation(
    account,
    contactActor(ci),
    { inbox, contact, contactInbox: ci },
    {
      additional_attributes: pageAttributes(req, input.message),
      custom_attributes: input.custom_attributes ?? undefined,
      message: { content: input.message?.content ?? undefined, echo_id: input.message?.echo_id ?? undefined },
    },
  );
  const refs = await refsFor(account.id, [conversation], message ? [message] : []);
  return widgetNewConversationJson(conversation, message, refs);
}

/** `POST /conversations/toggle_typing`: `on`/`off` raise the typing events, anything else does nothing. */
export async function toggleWidgetTyping(req: WidgetRequest, status: unknown) {
  const { ci } = await visitorSession(req.websiteToken, req.authToken);
  const c = await currentConversation(ci);
  if (!c) throw notFound('Conversation');
  if (status === 'on' || status === 'off') await announceTyping(contactActor(ci), c, { typing_status: status, is_private: false });
}

/** `POST /conversations/update_last_seen`: 200 with or without a conversation. */
export async function updateWidgetLastSeen(req: WidgetRequest) {
  const { ci } = await visitorSession(req.websiteToken, req.authToken);
  const c = await currentConversation(ci, true);
  if (c) await markSeenByContact(c);
}

/** `GET /conversations/toggle_status`: the visitor ends the chat; only where the inbox lets it (`end_conversation`). */
export async function resolveWidgetConversation(req: WidgetRequest) {
  const { inbox, account, ci } = await visitorSession(req.websiteToken, req.authToken);
  const c = await requireConversation(ci);
  if (!(inbox.selected_feature_flags ?? []).includes('end_conversation'))
    throw forbidden('This inbox does not let visitors end conversations');
  if (c.status !== 'resolved') await changeStatus(account, contactActor(ci), c, { status: 'resolved' });
}

async function changeAttributes(ci: ContactInboxRecord, next: (attrs: Record<string, unknown>) => Record<string, unknown>) {
  const c = await requireConversation(ci);
  const actor = contactActor(ci);
  const { conversation } = await mutate(c, (cur) => {
    const attrs = next(cur.custom_attributes);
    return {
      next: JSON.stringify(attrs) === JSON.stringify(cur.custom_attributes) ? undefined : touch(cur, actor, { custom_attributes: attrs }),
      result: undefined,
    };
  });
  return widgetConversationJson(conversation);
}

/** `POST /conversations/set_custom_attributes`: replaces the conversation's custom attributes. */
export async function setWidgetConversationAttributes(req: WidgetRequest, attrs: Record<string, unknown> | null | undefined) {
  const { ci } = await visitorSession(req.websiteToken, req.authToken);
  return changeAttributes(ci, () => attrs ?? {});
}

/** `POST /conversations/destroy_custom_attributes`: drops the named keys (`custom_attribute`: one or a list). */
export async function destroyWidgetConversationAttributes(req: WidgetRequest, names: string[] | null | undefined) {
  const { ci } = await visitorSession(req.websiteToken, req.authToken);
  const drop = new Set(names ?? []);
  return changeAttributes(ci, (attrs) => Object.fromEntries(Object.entries(attrs).filter(([k]) => !drop.has(k))));
}

/**
 * `POST /conversations/transcript`: as Chatwoot, the conversation's transcript is mailed to the contact's
 * email when it has one (ConversationReplyMailer#conversation_transcript, sent later by the pipeline) —
 * never to an address given with the request; answered 200 either way. Since a visitor can set its
 * contact's email to anyone's, each mail takes a slot per conversation (3 an hour), per visitor (5), per
 * client address (10) and per recipient (5) first: no way to turn the widget into a mail relay.
 */
export async function requestWidgetTranscript(req: WidgetRequest) {
  const { ci } = await visitorSession(req.websiteToken, req.authToken);
  const c = await requireConversation(ci);
  const contact = await contactOf(ci);
  if (!contact.email) return;
  await takeSlots(
    [
      [THROTTLES.transcriptConversation, `${c.account_id}:${c.id}`],
      [THROTTLES.transcriptVisitor, `${ci.inbox_id}:${ci.source_id}`],
      [THROTTLES.transcriptRecipient, throttleEmail(contact.email)],
      ...(req.address ? [[THROTTLES.transcriptAddress, addressScope(req.address)] as const] : []),
    ],
    'Too many transcript requests. Please try again later.',
  );
  await requestMail({ kind: 'conversation_transcript', account_id: c.account_id, conversation_id: c.id, to: contact.email });
}

// ── messages ───────────────────────────────────────────────────────────────────────────────────────

/** `GET /messages`: the newest 20 chat messages of the visitor's conversation (before `before`), oldest first. */
export async function listWidgetMessages(req: WidgetRequest, query: Record<string, string | undefined>) {
  const before = beforeCursor(query.before);
  const { ci } = await visitorSession(req.websiteToken, req.authToken);
  const c = await currentConversation(ci);
  if (!c) return [];
  const messages = await chatMessages(c, PAGE, before);
  const refs = await refsFor(c.account_id, [], messages);
  return messages.map((m) => widgetMessageJson(m, c, refs));
}

/**
 * `POST /messages`: an incoming message in the visitor's newest conversation, which is started when there
 * is none (Chatwoot's widget sends the first message this way unless the pre-chat form is on).
 */
export async function createWidgetMessage(req: WidgetRequest, input: WidgetNewMessage) {
  const { inbox, account, ci } = await visitorSession(req.websiteToken, req.authToken);
  const given = input.attachments ?? [];
  const signed = given.filter((a): a is string => typeof a === 'string');
  const owner = { account_id: ci.account_id, inbox_id: ci.inbox_id, source_id: ci.source_id };
  const files = [
    ...given.filter((a): a is Exclude<typeof a, string> => typeof a !== 'string'),
    ...(signed.length ? await storedUploads(owner, signed) : []),
  ];
  const message: NewMessage = {
    content: input.content,
    echo_id: input.echo_id ?? undefined,
    attachments: files.length ? files : undefined,
    ...(input.reply_to ? { content_attributes: { in_reply_to: input.reply_to } } : {}),
  };
  const current = await currentConversation(ci, true);
  const { conversation, message: created } = current
    ? await addMessage(account, contactActor(ci), current, message)
    : await startConversation(
        account,
        contactActor(ci),
        { inbox, contact: await contactOf(ci), contactInbox: ci },
        {
          additional_attributes: pageAttributes(req, input),
          message,
        },
      );
  const refs = await refsFor(account.id, [], [created!]);
  return widgetMessageJson(created!, conversation, refs, input.echo_id ?? undefined);
}

/**
 * `PATCH /messages/{id}`: the visitor answers an interactive message of its conversation: input_email
 * sends `contact.email` (kept as `submitted_email` and on the contact), the others `submitted_values`.
 */
export async function updateWidgetMessage(req: WidgetRequest, messageId: number, input: WidgetMessageUpdate) {
  const { inbox, ci } = await visitorSession(req.websiteToken, req.authToken);
  const c = await requireConversation(ci);
  const email = input.contact?.email?.toLowerCase();
  const answer: Record<string, unknown> = {};
  if (input.message?.submitted_values !== undefined) answer.submitted_values = input.message.submitted_values;
  if (email) answer.submitted_email = email;
  if (!Object.keys(answer).length)
    throw new ServiceError('invalid', 'Nothing to submit', [{ field: 'submitted_values', message: 'is required', code: 'required' }]);
  const updated = await submitAnswer(ci, c, messageId, answer);
  // An unproven visitor of an HMAC-mandatory inbox: the answer stays on the message only.
  if (email && (!inbox.hmac_mandatory || ci.hmac_verified)) {
    const contact = await contactOf(ci);
    await identifyVisitor(inbox, ci, contact, { email, name: contact.email || contact.identifier ? undefined : email.split('@')[0] });
  }
  return widgetMessageJson(updated, c, await refsFor(c.account_id, [], [updated]));
}

// ── contact ────────────────────────────────────────────────────────────────────────────────────────

export async function showWidgetContact(req: WidgetRequest) {
  const { ci } = await visitorSession(req.websiteToken, req.authToken);
  return widgetContactJson(await contactOf(ci), ci);
}

/**
 * `PATCH /contact` (the SDK's `setCustomAttributes`, the pre-chat details of a campaign): name, email,
 * phone, avatar and custom attributes (merged). An identifier is taken only with its valid hash, and only
 * by a visitor not identified as someone else (who starts over through `set_user`); Chatwoot takes it
 * unchecked, and would fold one identified user into another. On an HMAC-mandatory inbox an email or
 * phone change needs the visitor proven (401 otherwise).
 */
export async function updateWidgetContact(req: WidgetRequest, input: WidgetContact) {
  const { inbox, ci } = await visitorSession(req.websiteToken, req.authToken);
  const { identifier: _i, identifier_hash, ...fields } = input;
  const contact = await contactOf(ci);
  const proven = identifier_hash ? checkIdentity(inbox, input) : undefined;
  const identifier = proven && (!contact.identifier || contact.identifier === proven) ? proven : undefined;
  const email = fields.email?.toLowerCase();
  assertMayChangeIdentity(inbox, ci.hmac_verified || !!identifier, contact, { email, phone_number: fields.phone_number });
  const visitor = await identifyVisitor(inbox, ci, contact, { ...fields, email, identifier });
  const after = proves(identifier, visitor.contact) ? await markContactInboxVerified(visitor.ci) : visitor.ci;
  return widgetContactJson(visitor.contact, after);
}

/**
 * Chatwoot checks the identity hash when one is sent or the inbox makes it mandatory, except for a call
 * that only sets custom attributes without an identifier. On an HMAC-mandatory inbox that exception does
 * not let an unproven visitor set an email or phone number.
 */
function checkSetUser(inbox: InboxRecord, ci: ContactInboxRecord, contact: ContactRecord, input: WidgetContact): string | undefined {
  if (!input.identifier && input.custom_attributes && !input.identifier_hash) {
    assertMayChangeIdentity(inbox, ci.hmac_verified, contact, { email: input.email, phone_number: input.phone_number });
    return undefined;
  }
  const proven = checkIdentity(inbox, input);
  // A valid hash of the empty identifier proves no one.
  assertMayChangeIdentity(inbox, ci.hmac_verified || !!proven, contact, { email: input.email, phone_number: input.phone_number });
  return proven;
}

/**
 * `PATCH /contact/set_user` (the SDK's `setUser`), as Chatwoot's: a visitor already identified as another
 * user starts over as a new visitor (a new contact inbox here, named by the `widget_auth_token` answered);
 * then ContactIdentifyAction: when the account already has a contact with this identifier (or email or
 * phone, not on an HMAC-mandatory inbox), the visitor's contact is merged into it — its contact inbox,
 * conversations and messages go to that contact, and the visitor's token keeps working. A proven
 * identity marks the contact inbox verified (it then sees the user's conversations in this inbox).
 */
export async function setWidgetUser(req: WidgetRequest, input: WidgetContact) {
  const { inbox, ci: current } = await visitorSession(req.websiteToken, req.authToken);
  let ci = current;
  let contact = await contactOf(current);
  const proven = checkSetUser(inbox, ci, contact, input);
  const identifier = input.identifier || undefined;
  let switched = false;
  if (identifier && contact.identifier && contact.identifier !== identifier) {
    const made = await createContact(ci.account_id, { name: input.name ?? identifier }, inbox, { hmacVerified: false });
    ci = made.contactInbox!;
    contact = made.contact;
    switched = true;
  }
  const visitor = await identifyVisitor(inbox, ci, contact, {
    identifier,
    name: input.name,
    email: input.email?.toLowerCase(),
    phone_number: input.phone_number,
    avatar_url: input.avatar_url,
    custom_attributes: input.custom_attributes,
  });
  const updated = visitor.contact;
  ci = visitor.ci;
  if (proves(proven, updated)) ci = await markContactInboxVerified(ci);
  return {
    id: updated.id,
    name: updated.name,
    email: updated.email,
    phone_number: updated.phone_number,
    pubsub_token: ci.pubsub_token,
    ...(switched ? { widget_auth_token: await issueToken(ci) } : {}),
  };
}

/** `POST /contact/destroy_custom_attributes`: drops the named keys of the visitor's contact. */
export async function destroyWidgetContactAttributes(req: WidgetRequest, names: string[] | null | undefined) {
  const { ci } = await visitorSession(req.websiteToken, req.authToken);
  await destroyCustomAttributes(ci.account_id, ci.contact_id, { custom_attributes: names ?? [] });
  return widgetContactJson(await contactOf(ci), ci);
}

// ── inbox members, campaigns, labels ───────────────────────────────────────────────────────────────

/** `GET /inbox_members`: the agents who may answer, as the widget's header shows them. */
export async function listWidgetInboxMembers(req: WidgetRequest) {
  const { inbox } = await visitorSession(req.websiteToken, req.authToken);
  const agents = await agentsJson(inbox.account_id, await listInboxMemberIds(inbox.account_id, inbox.id));
  return {
    payload: agents.map((a) => ({ name: a.available_name || a.name, avatar_url: a.thumbnail, availability_status: a.availability_status })),
  };
}

/** `GET /campaigns`: the inbox's enabled ongoing campaigns (widget/campaigns.ts). */
export async function listWidgetCampaigns(req: WidgetRequest) {
  const { inbox } = await visitorSession(req.websiteToken, req.authToken);
  return widgetCampaignsJson(inbox);
}

async function changeLabels(visitor: Visitor, next: (labels: string[]) => string[]) {
  const c = await currentConversation(visitor.ci, true);
  if (!c) return;
  await applyLabels(visitor.account as AccountRecord, contactActor(visitor.ci), c, next(c.labels));
}

/** `POST /labels`: adds a label the account defines to the visitor's conversation; 204 whatever happened. */
export async function addWidgetLabel(req: WidgetRequest, label: string | null | undefined) {
  const visitor = await visitorSession(req.websiteToken, req.authToken);
  if (!label) return;
  const defined = (await listLabels(visitor.inbox.account_id)).some((l) => l.title === label);
  if (!defined) return;
  return changeLabels(visitor, (labels) => (labels.includes(label) ? labels : [...labels, label]));
}

/** `DELETE /labels/{id}` (`id` is the label's title); 204. */
export async function removeWidgetLabel(req: WidgetRequest, label: string) {
  const visitor = await visitorSession(req.websiteToken, req.authToken);
  return changeLabels(visitor, (labels) => labels.filter((l) => l !== label));
}

/** The widget request of a handler's context: the website token (query or body) and the visitor's headers. */
export function widgetRequest(ctx: {
  query: Record<string, string | undefined>;
  body: unknown;
  event: { headers: Record<string, string | undefined>; requestContext?: { http?: { sourceIp?: string } } };
}): WidgetRequest {
  const body = ctx.body && typeof ctx.body === 'object' ? (ctx.body as Record<string, unknown>) : {};
  return {
    websiteToken: websiteTokenOf(ctx.query, body),
    authToken: ctx.event.headers['x-auth-token'],
    userAgent: ctx.event.headers['user-agent'],
    acceptLanguage: ctx.event.headers['accept-language'],
    address: ctx.event.requestContext?.http?.sourceIp,
  };
}
