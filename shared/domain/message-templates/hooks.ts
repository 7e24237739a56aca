import { getContact } from '#shared/db/repositories/contacts.ts';
import { getAccount } from '#shared/db/repositories/identity.ts';
import { getConversation } from '#shared/db/repositories/conversations.ts';
import { getInbox } from '#shared/db/repositories/inboxes.ts';
import { listMessages } from '#shared/db/repositories/messages.ts';
import type { InboxRecord, WorkingHour } from '#shared/model/inboxes.ts';
import type { ContactRecord } from '#shared/model/contacts.ts';
import type { MessageRecord } from '#shared/model/messages.ts';

// Chatwoot's message templates hook (docs/chatwoot.md#greeting-and-out-of-office): a contact's message may be
// answered by the inbox itself, as a `template` message without a sender that the inbox's channel sends like any
// reply. The greeting answers the first message of a conversation nobody has answered yet; the out-of-office
// message answers a message that arrives outside the inbox's working hours, at most once a day per conversation
// and not while an agent answered in the last five minutes. In a web widget inbox with `enable_email_collect`, a
// contact without an email is then asked for one (Chatwoot's EmailCollect: a line of text and the "Get notified by
// email" `input_email` message the widget shows as an email box), once per conversation. An automatic mail reply and
// a campaign's conversation get none of them.

/** The conversation's newest messages read to decide (a conversation longer than this is past its greeting). */
const RECENT = 25;
const AGENT_ACTIVE_S = 5 * 60;

/** Minutes since midnight, and the day of the week, at `at` (seconds) in the inbox's time zone. */
function localTime(tz: string, at: number): { day: number; minutes: number } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: tz,
    weekday: 'short',
    hour: 'numeric',
    minute: 'numeric',
    hourCycle: 'h23',
  }).formatToParts(new Date(at * 1000));
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  const day = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(part('weekday'));
  return { day, minutes: Number(part('hour')) * 60 + Number(part('minute')) };
}

/** Chatwoot's `inbox.out_of_office?`: working hours on, and now outside today's (closed all day, or before or after its hours). */
export function isOutOfOffice(inbox: Pick<InboxRecord, 'working_hours_enabled' | 'working_hours' | 'timezone'>, at: number): boolean {
  if (!inbox.working_hours_enabled) return false;
  const { day, minutes } = localTime(inbox.timezone || 'UTC', at);
  const today: WorkingHour | undefined = inbox.working_hours.find((w) => w.day_of_week === day);
  if (!today || today.closed_all_day) return true;
  if (today.open_all_day) return false;
  const open = (today.open_hour ?? 0) * 60 + (today.open_minutes ?? 0);
  const close = (today.close_hour ?? 0) * 60 + (today.close_minutes ?? 0);
  return minutes < open || minutes >= close;
}

const isAutoReply = (m: MessageRecord) => (m.content_attributes.email as { auto_reply?: boolean } | undefined)?.auto_reply === true;
const sameUtcDay = (a: number, b: number) => Math.floor(a / 86_400) === Math.floor(b / 86_400);

/** What the inbox says to a contact's new message: the out-of-office message and the greeting, in Chatwoot's order. */
export function templatesFor(inbox: InboxRecord, m: MessageRecord, recent: MessageRecord[], at: number): string[] {
  const others = recent.filter((r) => r.id !== m.id);
  const out: string[] = [];
  const agentActive = others.some((r) => r.message_type === 1 && !r.private && at - r.created_at < AGENT_ACTIVE_S);
  const templateToday = others.some((r) => r.message_type === 3 && sameUtcDay(r.created_at, at));
  if (inbox.out_of_office_message && !agentActive && !templateToday && isOutOfOffice(inbox, at)) out.push(inbox.out_of_office_message);
  const answered = others.some((r) => r.message_type === 1 || r.message_type === 3) || recent.length >= RECENT;
  // The out-of-office message just sent is a template: Chatwoot then sends no greeting either.
  if (inbox.greeting_enabled && inbox.greeting_message && !answered && !out.length) out.push(inbox.greeting_message);
  return out;
}

/** A message the inbox adds itself: its content and, for an input, its content type. */
export interface TemplateMessage {
  content: string;
  content_type?: 'input_email';
}

/**
 * Chatwoot's EmailCollect messages (its `conversations.templates` strings, English): a template asking for a way to
 * reach the contact, then the `input_email` template the widget renders as an email box (its answer, `submitted_email`,
 * becomes the contact's email: the widget's `PATCH /messages/{id}`).
 */
export const EMAIL_COLLECT: TemplateMessage[] = [
  { content: 'Give the team a way to reach you.' },
  { content: 'Get notified by email', content_type: 'input_email' },
];

const collectsEmail = (inbox: InboxRecord) => inbox.enable_email_collect === true && inbox.channel_type === 'Channel::WebWidget';

/**
 * Whether the conversation still needs the email collect, its contact's email aside: a web widget inbox with
 * `enable_email_collect`, no `input_email` message among the recent ones, and not past its start (a conversation
 * longer than RECENT, like the greeting).
 */
export function wantsEmailCollect(inbox: InboxRecord, recent: MessageRecord[]): boolean {
  return collectsEmail(inbox) && recent.length < RECENT && !recent.some((r) => r.content_type === 'input_email');
}

/**
 * Runs the hook for a contact's message that was just stored (the events pipeline, on `message_created`), with the
 * inbox and the sender where the caller read them already.
 */
export async function answerWithTemplates(
  m: MessageRecord,
  known: { inbox?: InboxRecord; sender?: ContactRecord } = {},
  at = Math.floor(Date.now() / 1000),
): Promise<number> {
  if (m.message_type !== 0 || isAutoReply(m)) return 0;
  const inbox = known.inbox?.id === m.inbox_id ? known.inbox : await getInbox(m.account_id, m.inbox_id);
  if (!inbox) return 0;
  const templates = (inbox.greeting_enabled && inbox.greeting_message) || (inbox.working_hours_enabled && inbox.out_of_office_message);
  // The email collect (on by default in web widget inboxes) first looks at the sender alone (the dispatcher's, or one
  // key read): a contact with an email costs nothing more when the inbox has no other template.
  const sender =
    collectsEmail(inbox) && m.sender_type === 'Contact' && m.sender_id
      ? known.sender?.id === m.sender_id
        ? known.sender
        : await getContact(m.account_id, m.sender_id)
      : undefined;
  const asksEmail = !!sender && !sender.email;
  if (!templates && !asksEmail) return 0;
  const [account, conversation] = await Promise.all([getAccount(m.account_id), getConversation(m.account_id, m.conversation_id, true)]);
  if (!account || !conversation) return 0;
  const recent = await listMessages(m.account_id, m.conversation_id, { limit: RECENT });
  // A campaign's conversation (it opened with the campaign's message) gets no template.
  if (recent.some((r) => r.additional_attributes?.campaign_id !== undefined)) return 0;
  const messages: TemplateMessage[] = templatesFor(inbox, m, recent, at).map((content) => ({ content }));
  if (asksEmail && wantsEmailCollect(inbox, recent)) messages.push(...EMAIL_COLLECT);
  if (!messages.length) return 0;
  // The message service loads with the first template sent (a dynamic import): the dispatcher runs this hook for
  // every contact message, and most are answered by nobody but agents.
  const { addMessage } = await import('../messages/service.ts');
  let c = conversation;
  for (const t of messages) {
    ({ conversation: c } = await addMessage(account, { type: 'channel', inboxId: inbox.id }, c, { ...t, message_type: 'template' }));
  }
  return messages.length;
}
