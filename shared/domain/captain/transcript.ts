import { listMessages } from '#shared/db/repositories/messages.ts';
import type { ContactRecord } from '#shared/model/contacts.ts';
import type { ConversationRecord } from '#shared/model/conversations.ts';
import type { MessageRecord } from '#shared/model/messages.ts';
import type { ChatMessage } from './openai.ts';

// What the model reads of a conversation: its public incoming and outgoing messages, newest first until a
// budget of characters is spent (Chatwoot's 400,000, about the model's context), then in order.

export const CHAR_BUDGET = 400_000;
/** Messages read per query, and at most this many pages: a long conversation costs a bounded read. */
const PAGE = 100;
const MAX_PAGES = 10;

const spoken = (m: MessageRecord) => (m.message_type === 0 || m.message_type === 1) && !m.private && !!m.content?.trim();

/**
 * Adds `newestFirst` to the front of `out` while the budget lasts; false once it is spent. `spent` is the
 * budget used so far, updated.
 */
function take(newestFirst: MessageRecord[], out: ChatMessage[], spent: { chars: number }, budget: number): boolean {
  for (const m of newestFirst) {
    if (!spoken(m)) continue;
    const content = m.content!.trim();
    if (spent.chars + content.length > budget) return false;
    out.unshift({ role: m.message_type === 0 ? 'user' : 'assistant', content });
    spent.chars += content.length;
  }
  return true;
}

/** The public exchange of messages already read (in order), within `budget` characters. */
export function exchangeOf(messages: MessageRecord[], budget = CHAR_BUDGET): ChatMessage[] {
  const out: ChatMessage[] = [];
  take([...messages].reverse(), out, { chars: 0 }, budget);
  return out;
}

/** The conversation's public exchange, oldest first, within `budget` characters. */
export async function exchange(c: ConversationRecord, budget = CHAR_BUDGET): Promise<ChatMessage[]> {
  const out: ChatMessage[] = [];
  const spent = { chars: 0 };
  let before: number | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const batch = (await listMessages(c.account_id, c.id, { before, limit: PAGE })).reverse();
    if (!take(batch, out, spent, budget) || batch.length < PAGE) break;
    before = batch[batch.length - 1]!.id;
  }
  return out;
}

/** `Customer:` and `Agent:` lines. */
export const dialogue = (messages: ChatMessage[]) =>
  messages.map((m) => `${m.role === 'user' ? 'Customer' : 'Agent'}: ${m.content}`).join('\n');

/** The exchange as one text: `Customer:` and `Agent:` lines, with the contact's details when asked. */
export function transcript(c: ConversationRecord, messages: ChatMessage[], contact?: ContactRecord): string {
  const head = [`Conversation #${c.id}`];
  if (contact) {
    head.push(`Customer: ${contact.name || 'unknown'}`);
    if (contact.email) head.push(`Customer email: ${contact.email}`);
    if (contact.phone_number) head.push(`Customer phone: ${contact.phone_number}`);
  }
  return [...head, '', dialogue(messages)].join('\n');
}
