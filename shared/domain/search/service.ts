import { getConversations, lastDisplayId, listContactConversationLinks } from '#shared/db/repositories/conversations.ts';
import { listContactListings, type ContactListing } from '#shared/db/repositories/contacts.ts';
import { getMessages, listMessages } from '#shared/db/repositories/messages.ts';
import type { Actor } from '#shared/model/actor.ts';
import { invalidField } from '#shared/errors.ts';
import type { AccountRecord } from '#shared/model/identity.ts';
import type { ConversationRecord } from '#shared/model/conversations.ts';
import type { MessageRecord } from '#shared/model/messages.ts';
import { inboxScope } from '../inboxes/access.ts';
import { botSlimJson, loadRefs, messageJson, type Refs } from '../conversations/view.ts';
import { findMessages, type FoundMessage } from './messages.ts';
import { pageNumber } from '../paging.ts';

// Chatwoot's global search (SearchService, views api/v1/accounts/search/*): `GET search` and
// `search/{contacts,conversations,messages}` with `q` and `page`, 15 results a page.
//  - contacts: name, email, phone number or identifier contains `q` (case-insensitive), contacts
//    with an email, phone or identifier ("resolved" contacts), newest activity first;
//  - conversations: of the caller's inboxes, whose display id or contact (name, email, phone,
//    identifier) contains `q`, newest first;
//  - messages: incoming and outgoing messages (private notes included) of the caller's inboxes from the
//    last three months whose content contains `q`, newest first.

export const SEARCH_PAGE_SIZE = 15;
const THREE_MONTHS_S = 90 * 24 * 3600;

export type SearchQuery = Record<string, string | undefined>;

const termOf = (q: SearchQuery) => {
  const term = q.q?.trim();
  if (!term) throw invalidField('q', 'Specify search string with parameter q', 'required');
  return term;
};

const contains = (value: string | null, lower: string) => !!value && value.toLowerCase().includes(lower);

const contactMatches = (l: ContactListing, lower: string) =>
  contains(l.name, lower) || contains(l.email, lower) || contains(l.phone_number, lower) || contains(l.identifier, lower);

const contactResultJson = (c: {
  email: string | null;
  id: number;
  name: string;
  phone_number: string | null;
  identifier: string | null;
}) => ({
  email: c.email,
  id: c.id,
  name: c.name,
  phone_number: c.phone_number,
  identifier: c.identifier,
});

/** AP46: the account's listed contacts matching the term, newest activity first. */
async function matchingContacts(accountId: number, term: string) {
  const lower = term.toLowerCase();
  const rows = (await listContactListings(accountId)).filter((l) => contactMatches(l, lower));
  return rows.sort((a, b) => (b.last_activity_at ?? 0) - (a.last_activity_at ?? 0) || b.id - a.id);
}

async function contactsPage(accountId: number, term: string, page: number) {
  const rows = await matchingContacts(accountId, term);
  return rows.slice((page - 1) * SEARCH_PAGE_SIZE, page * SEARCH_PAGE_SIZE).map(contactResultJson);
}

const scopeTest = (scope: 'all' | Set<number>) => (inboxId: number) => scope === 'all' || scope.has(inboxId);

/**
 * Display ids at most `max` that contain the digits of `term`, highest first (display ids are dense and
 * given out in creation order, so this is newest first).
 */
function* displayIdsContaining(term: string, max: number): Generator<number> {
  if (!/^\d{1,15}$/.test(term)) return;
  for (let id = max; id >= 1; id--) if (String(id).includes(term)) yield id;
}

/**
 * The page of conversations whose display id or contact matches: the contacts' conversation links
 * (AP64, which carry the inbox) and, for a numeric term, the display ids containing it, merged newest
 * first; records are read only for the candidates needed to fill the page.
 */
async function conversationsPage(account: AccountRecord, actor: Actor, term: string, page: number): Promise<ConversationRecord[]> {
  const visible = scopeTest(await inboxScope(account.id, actor));
  const [contacts, max] = await Promise.all([matchingContacts(account.id, term), /^\d+$/.test(term) ? lastDisplayId(account.id) : 0]);
  const links = (await Promise.all(contacts.map((c) => listContactConversationLinks(account.id, c.id)))).flat();
  const byContact = [...new Set(links.filter((l) => visible(l.inbox_id)).map((l) => l.conversation_id))].sort((a, b) => b - a);
  const numeric = displayIdsContaining(term, max);
  const want = page * SEARCH_PAGE_SIZE;
  const found: ConversationRecord[] = [];
  const seen = new Set<number>();
  let ci = 0;
  let next = numeric.next();
  while (found.length < want && (ci < byContact.length || !next.done)) {
    // Up to 50 candidates, newest first, from both sources.
    const batch: number[] = [];
    while (batch.length < 50 && (ci < byContact.length || !next.done)) {
      const fromContact = ci < byContact.length ? byContact[ci] : -1;
      const fromId = next.done ? -1 : next.value;
      const id = Math.max(fromContact, fromId);
      if (id === fromContact) ci++;
      if (id === fromId) next = numeric.next();
      if (seen.has(id)) continue;
      seen.add(id);
      batch.push(id);
    }
    for (const c of await getConversations(account.id, batch)) if (c && visible(c.inbox_id)) found.push(c);
  }
  return found.sort((a, b) => b.created_at - a.created_at || b.id - a.id).slice((page - 1) * SEARCH_PAGE_SIZE, want);
}

function assigneeJson(c: ConversationRecord, refs: Refs) {
  if (c.assignee_agent_bot_id !== null) {
    const bot = refs.bots.get(c.assignee_agent_bot_id);
    return bot ? { assignee_type: 'AgentBot', agent: botSlimJson(bot) } : {};
  }
  const member = c.assignee_id !== null ? refs.users.get(c.assignee_id) : undefined;
  if (!member) return {};
  const { user, membership } = member;
  return {
    assignee_type: 'User',
    agent: {
      id: user.id,
      available_name: user.display_name || user.name,
      email: user.email,
      name: user.name,
      role: membership?.role ?? 'agent',
    },
  };
}

/** `_conversation_search_result`: the conversation with its first message, contact, inbox and assignee. */
async function conversationResultsJson(account: AccountRecord, actor: Actor, cs: ConversationRecord[]) {
  const firsts = await Promise.all(cs.map(async (c) => (await listMessages(account.id, c.id, { after: 0, limit: 1 }))[0]));
  const refs = await loadRefs(
    account.id,
    actor,
    cs,
    firsts.filter((m): m is MessageRecord => !!m),
  );
  return cs.map((c, i) => {
    const contact = refs.contacts.get(c.contact_id);
    const inbox = refs.inboxes.get(c.inbox_id);
    return {
      id: c.id,
      account_id: c.account_id,
      created_at: c.created_at,
      message: firsts[i] ? messageJson(firsts[i], refs) : {},
      contact: contact ? contactResultJson(contact) : {},
      inbox: inbox ? { id: inbox.id, channel_id: inbox.channel_id ?? inbox.id, name: inbox.name, channel_type: inbox.channel_type } : {},
      ...assigneeJson(c, refs),
    };
  });
}

/** The caller's inboxes (ids, or 'all') for message search. */
async function inboxIdsInScope(account: AccountRecord, actor: Actor): Promise<number[] | 'all'> {
  const scope = await inboxScope(account.id, actor);
  return scope === 'all' ? 'all' : [...scope];
}

async function messagesPage(account: AccountRecord, actor: Actor, term: string, page: number) {
  const since = Math.floor(Date.now() / 1000) - THREE_MONTHS_S;
  const found = (await findMessages(account.id, await inboxIdsInScope(account, actor), term)).filter((m: FoundMessage) => m.t >= since);
  found.sort((a, b) => b.t - a.t || b.m - a.m);
  const slice = found.slice((page - 1) * SEARCH_PAGE_SIZE, page * SEARCH_PAGE_SIZE);
  const records = (
    await getMessages(
      account.id,
      slice.map((h) => ({ conversation_id: h.c, id: h.m })),
    )
  ).filter((m): m is MessageRecord => !!m);
  const refs = await loadRefs(account.id, actor, [], records);
  const totalPages = Math.ceil(found.length / SEARCH_PAGE_SIZE);
  return {
    messages: records.map((m) => messageJson(m, refs)),
    meta: { current_page: page, total_count: found.length, total_pages: totalPages },
  };
}

/** `GET search/contacts`. */
export async function searchContactsResult(account: AccountRecord, q: SearchQuery) {
  return { payload: { contacts: await contactsPage(account.id, termOf(q), pageNumber(q.page)) } };
}

/** `GET search/conversations`. */
export async function searchConversationsResult(account: AccountRecord, actor: Actor, q: SearchQuery) {
  const cs = await conversationsPage(account, actor, termOf(q), pageNumber(q.page));
  return { payload: { conversations: await conversationResultsJson(account, actor, cs) } };
}

/** `GET search/messages`. */
export async function searchMessagesResult(account: AccountRecord, actor: Actor, q: SearchQuery) {
  const { messages, meta } = await messagesPage(account, actor, termOf(q), pageNumber(q.page));
  return { payload: { messages, meta } };
}

/** `GET search`: all three kinds (and no help-center articles: there is no help center). */
export async function searchAll(account: AccountRecord, actor: Actor, q: SearchQuery) {
  const term = termOf(q);
  const page = pageNumber(q.page);
  const [contacts, cs, messages] = await Promise.all([
    contactsPage(account.id, term, page),
    conversationsPage(account, actor, term, page),
    messagesPage(account, actor, term, page),
  ]);
  return {
    payload: { conversations: await conversationResultsJson(account, actor, cs), contacts, messages: messages.messages, articles: [] },
  };
}
