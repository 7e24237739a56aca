import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, fieldsOf, seedAccount, unique, type SeededAccount } from '../../support/runtime.ts';
import { addInboxMembers, expectMessageShape, newContact, newConversation, newInbox, ok } from '../conversations/fixtures.ts';

// Chatwoot's global search (SearchService and the api/v1/accounts/search views): `GET search`,
// `search/contacts`, `search/conversations`, `search/messages` with `q` and `page`; agents see only
// their inboxes' conversations and messages; another account's data never shows.

describe('global search', () => {
  let s: SeededAccount;
  let other: SeededAccount;
  let inboxA: { id: number; name: string; channel_type: string };
  let inboxB: { id: number };
  let term: string;
  let contact: { id: number; name: string; email: string };
  let convA: Record<string, any>;
  let convB: Record<string, any>;
  let outgoingId: number;

  beforeAll(async () => {
    [s, other] = await Promise.all([seedAccount(), seedAccount()]);
    [inboxA, inboxB] = await Promise.all([newInbox(s), newInbox(s)]);
    await addInboxMembers(s, inboxA.id, [s.agent.id]);
    term = unique('Zq').replace(/[^A-Za-z0-9]/g, '');
    contact = await newContact(s, { name: `Ann ${term} Lee`, phone_number: '+15550001111' });
    convA = await newConversation(s, { inbox_id: inboxA.id, contact_id: contact.id, assignee_id: s.agent.id });
    convB = await newConversation(s, { inbox_id: inboxB.id, contact_id: contact.id, status: 'resolved' });
    const say = (id: number, body: Record<string, unknown>) => s.admin.api.post(`${s.base}/conversations/${id}/messages`, body);
    ok(await say(convA.id, { content: `first words about ${term.toUpperCase()}`, message_type: 'incoming' }), 'm1');
    outgoingId = ok(await say(convA.id, { content: `reply about ${term.toLowerCase()} here` }), 'm2').id;
    ok(await say(convB.id, { content: `resolved ${term} thread`, message_type: 'incoming' }), 'm3');
    ok(await say(convB.id, { content: 'unrelated words' }), 'm4');
    // Another account with the same term: never found from s.
    const [oi, oc] = await Promise.all([newInbox(other), newContact(other, { name: `Other ${term}` })]);
    const oconv = await newConversation(other, { inbox_id: oi.id, contact_id: oc.id });
    ok(await other.admin.api.post(`${other.base}/conversations/${oconv.id}/messages`, { content: `other ${term}` }), 'other');
  });

  it('search/contacts matches name, email and phone case-insensitively with the slim contact shape', async () => {
    const res = ok(await s.admin.api.get(`${s.base}/search/contacts?q=${term.toLowerCase()}`), 'contacts');
    expect(Object.keys(res)).toEqual(['payload']);
    expect(res.payload.contacts).toEqual([
      { email: contact.email, id: contact.id, name: contact.name, phone_number: '+15550001111', identifier: null },
    ]);
    const byPhone = ok(await s.admin.api.get(`${s.base}/search/contacts?q=5550001`), 'phone').payload.contacts;
    expect(byPhone.map((c: any) => c.id)).toContain(contact.id);
    expect(ok(await s.admin.api.get(`${s.base}/search/contacts?q=${term}&page=2`), 'page 2').payload.contacts).toEqual([]);
    // Agents search every contact of the account, as in Chatwoot.
    expect(ok(await s.agent.api.get(`${s.base}/search/contacts?q=${term}`), 'agent').payload.contacts).toHaveLength(1);
  });

  it('search/conversations finds conversations by contact and display id, with first message, contact, inbox and agent', async () => {
    const res = ok(await s.admin.api.get(`${s.base}/search/conversations?q=${term.toUpperCase()}`), 'conversations');
    const found = res.payload.conversations;
    expect(found.map((c: any) => c.id)).toEqual([convB.id, convA.id]);
    const a = found[1];
    expect(a).toMatchObject({
      id: convA.id,
      account_id: s.accountId,
      created_at: expect.any(Number),
      contact: { id: contact.id, name: contact.name, email: contact.email, phone_number: '+15550001111', identifier: null },
      inbox: { id: inboxA.id, name: inboxA.name, channel_type: 'Channel::Api', channel_id: expect.any(Number) },
      assignee_type: 'User',
      agent: { id: s.agent.id, email: expect.any(String), name: expect.any(String), available_name: expect.any(String), role: 'agent' },
    });
    expectMessageShape(a.message);
    expect(a.message.content).toBe(`first words about ${term.toUpperCase()}`);
    expect(found[0].agent).toBeUndefined();
    expect(found[0].assignee_type).toBeUndefined();
    const byId = ok(await s.admin.api.get(`${s.base}/search/conversations?q=${convB.id}`), 'by id').payload.conversations;
    expect(byId.map((c: any) => c.id)).toContain(convB.id);
  });

  it('search/messages finds incoming and outgoing messages of any status, newest first, with meta', async () => {
    const res = ok(await s.admin.api.get(`${s.base}/search/messages?q=${term.toLowerCase()}`), 'messages');
    const ms = res.payload.messages;
    expect(ms.map((m: any) => m.content)).toEqual([
      `resolved ${term} thread`,
      `reply about ${term.toLowerCase()} here`,
      `first words about ${term.toUpperCase()}`,
    ]);
    ms.forEach(expectMessageShape);
    expect(ms[1].id).toBe(outgoingId);
    expect(res.payload.meta).toEqual({ current_page: 1, total_count: 3, total_pages: 1 });
    // A phrase across words, in another case.
    const phrase = ok(await s.admin.api.get(`${s.base}/search/messages?q=${encodeURIComponent(`ABOUT ${term} HE`)}`), 'phrase').payload
      .messages;
    expect(phrase.map((m: any) => m.id)).toEqual([outgoingId]);
  });

  it("answers the mobile app's search sections (SearchService.searchSection: q and page as query parameters)", async () => {
    // chatwoot-mobile-app src/store/search: GET search/<section> with params {q, page}, reading payload.<section>.
    for (const section of ['contacts', 'conversations', 'messages'] as const) {
      const res = ok(await s.agent.api.get(`${s.base}/search/${section}?q=${encodeURIComponent(term)}&page=1`), section);
      expect(Array.isArray(res.payload[section])).toBe(true);
      expect(res.payload[section].length).toBeGreaterThan(0);
    }
  });

  it('agents see only conversations and messages of their inboxes', async () => {
    const conv = ok(await s.agent.api.get(`${s.base}/search/conversations?q=${term}`), 'agent conversations').payload.conversations;
    expect(conv.map((c: any) => c.id)).toEqual([convA.id]);
    const ms = ok(await s.agent.api.get(`${s.base}/search/messages?q=${term}`), 'agent messages').payload.messages;
    expect(ms.map((m: any) => m.conversation_id)).toEqual([convA.id, convA.id]);
  });

  it('GET search answers all kinds at once, and articles empty', async () => {
    const res = ok(await s.agent.api.get(`${s.base}/search?q=${term}`), 'all');
    expect(Object.keys(res.payload).sort()).toEqual(['articles', 'contacts', 'conversations', 'messages']);
    expect(res.payload.contacts.map((c: any) => c.id)).toEqual([contact.id]);
    expect(res.payload.conversations.map((c: any) => c.id)).toEqual([convA.id]);
    expect(res.payload.messages).toHaveLength(2);
    expect(res.payload.articles).toEqual([]);
  });

  it('never shows another account and refuses a missing q', async () => {
    for (const path of ['search', 'search/contacts', 'search/conversations', 'search/messages']) {
      const res = ok(await other.admin.api.get(`${other.base}/${path}?q=${term}`), path);
      const p = res.payload;
      for (const kind of ['contacts', 'conversations', 'messages'] as const) {
        for (const x of p[kind] ?? []) expect(x.account_id ?? other.accountId).toBe(other.accountId);
      }
      expect(fieldsOf(expectErrorBody(await s.admin.api.get(`${s.base}/${path}`), 422))).toEqual({ q: 'required' });
      // Another account's administrator on s's account: 404 (not a member).
      expectErrorBody(await other.admin.api.get(`${s.base}/${path}?q=${term}`), 404);
    }
    const contacts = ok(await other.admin.api.get(`${other.base}/search/contacts?q=${term}`), 'c').payload.contacts;
    expect(contacts.map((c: any) => c.name)).toEqual([`Other ${term}`]);
  });
});
