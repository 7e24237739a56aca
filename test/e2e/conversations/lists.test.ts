import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, seedAccount, type SeededAccount } from '../../support/runtime.ts';
import { addInboxMembers, expectConversationShape, newBot, newContact, newConversation, newInbox, newTeam, ok } from './fixtures.ts';

// GET /conversations and /conversations/meta (contract endpoint 4, docs/contract.md#endpoints,
// docs/chatwoot.md#lists-counts-search-and-filters): filters, agent scope, counts before assignee_type, `q` over
// message content across statuses, pagination.

describe('conversation lists and counts', () => {
  let s: SeededAccount;
  let other: SeededAccount;
  let inboxA: { id: number };
  let inboxB: { id: number };
  let team: { id: number };
  const c: Record<string, number> = {};

  beforeAll(async () => {
    [s, other] = await Promise.all([seedAccount(), seedAccount()]);
    [inboxA, inboxB] = await Promise.all([newInbox(s), newInbox(s)]);
    await addInboxMembers(s, inboxA.id, [s.agent.id]);
    team = await newTeam(s, [s.admin.id]);
    const contact = await newContact(s);
    const make = async (name: string, inbox: { id: number }, body: Record<string, unknown> = {}) => {
      c[name] = (await newConversation(s, { inbox_id: inbox.id, contact_id: contact.id, ...body })).id;
    };
    await make('c1', inboxA);
    await make('c2', inboxA, { assignee_id: s.agent.id });
    await make('c3', inboxA, { assignee_id: s.admin.id, team_id: team.id });
    await make('c4', inboxB);
    await make('c5', inboxB, { status: 'resolved' });
    await make('c6', inboxA, { status: 'pending' });
    await make('c7', inboxA, { status: 'snoozed', assignee_id: s.agent.id });
    await make('c8', inboxA);
    const bot = await newBot(s);
    ok(await s.admin.api.post(`${s.base}/conversations/${c.c8}/assignments`, { assignee_id: bot.id, assignee_type: 'AgentBot' }), 'bot');
    const labels = (id: number, labels: string[]) => s.admin.api.post(`${s.base}/conversations/${id}/labels`, { labels });
    ok(await labels(c.c1, ['vip']), 'l1');
    ok(await labels(c.c4, ['vip', 'billing']), 'l4');
    ok(await labels(c.c5, ['billing']), 'l5');
    const say = (id: number, body: Record<string, unknown>) => s.admin.api.post(`${s.base}/conversations/${id}/messages`, body);
    ok(await say(c.c2, { content: 'Where is my ORDER 42?', message_type: 'incoming' }), 'm2');
    ok(await say(c.c5, { content: 'Your order shipped' }), 'm5');
    ok(await say(c.c6, { content: 'internal: check the order', private: true }), 'm6');
    ok(await say(c.c1, { content: 'nothing to see' }), 'm1');
    // c2 reopened nothing (it was open); c5 got an outgoing reply and stays resolved.
  });

  const meta = async (api: SeededAccount['admin']['api'], query = '') => ok(await api.get(`${s.base}/conversations/meta${query}`), 'meta');

  it('counts open conversations by default: mine, unassigned (bot-assigned included), assigned, all', async () => {
    const res = await meta(s.admin.api);
    expect(res).toEqual({ meta: { mine_count: 1, unassigned_count: 3, assigned_count: 2, all_count: 5 } });
    expect(Object.keys(res)).toEqual(['meta']);
  });

  it('counts only the inboxes an agent is a member of', async () => {
    expect((await meta(s.agent.api)).meta).toEqual({ mine_count: 1, unassigned_count: 2, assigned_count: 2, all_count: 4 });
    expect((await meta(s.agent.api, `?inbox_id=${inboxB.id}`)).meta.all_count).toBe(0);
  });

  it('counts status all, snoozed, resolved, pending', async () => {
    expect((await meta(s.admin.api, '?status=all')).meta).toEqual({ mine_count: 1, unassigned_count: 5, assigned_count: 3, all_count: 8 });
    expect((await meta(s.agent.api, '?status=snoozed')).meta).toEqual({
      mine_count: 1,
      unassigned_count: 0,
      assigned_count: 1,
      all_count: 1,
    });
    expect((await meta(s.admin.api, '?status=resolved')).meta.all_count).toBe(1);
    expect((await meta(s.admin.api, '?status=pending')).meta.all_count).toBe(1);
    expect(expectErrorBody(await s.admin.api.get(`${s.base}/conversations/meta?status=closed`), 422).errors[0].field).toBe('status');
  });

  it('filters counts by inbox, team and labels', async () => {
    expect((await meta(s.admin.api, `?inbox_id=${inboxB.id}`)).meta).toEqual({
      mine_count: 0,
      unassigned_count: 1,
      assigned_count: 0,
      all_count: 1,
    });
    expect((await meta(s.admin.api, `?team_id=${team.id}`)).meta).toEqual({
      mine_count: 1,
      unassigned_count: 0,
      assigned_count: 1,
      all_count: 1,
    });
    expectErrorBody(await s.admin.api.get(`${s.base}/conversations/meta?team_id=99999999`), 404);
    expect((await meta(s.admin.api, '?labels[]=vip')).meta.all_count).toBe(2);
    expect((await meta(s.admin.api, '?status=all&labels[]=vip&labels[]=billing')).meta.all_count).toBe(3);
    expect((await meta(s.agent.api, '?labels[]=vip')).meta.all_count).toBe(1);
  });

  it('searches message content case-insensitively across statuses with q', async () => {
    // c2 (incoming, open), c5 (outgoing, resolved), c6 (private note, pending); status is ignored with q.
    expect((await meta(s.admin.api, '?q=order')).meta).toEqual({ mine_count: 0, unassigned_count: 2, assigned_count: 1, all_count: 3 });
    expect((await meta(s.admin.api, '?q=ORDER&status=open')).meta.all_count).toBe(3);
    expect((await meta(s.agent.api, '?q=Order')).meta.all_count).toBe(2);
    expect((await meta(s.admin.api, `?q=order&inbox_id=${inboxB.id}`)).meta.all_count).toBe(1);
    // Activity messages are not searched.
    expect((await meta(s.admin.api, '?q=Assigned%20to')).meta.all_count).toBe(0);
    expect((await meta(s.admin.api, '?q=nothing%20to%20see')).meta.all_count).toBe(1);
  });

  it('lists open conversations newest activity first with the counts; assignee_type filters the payload only', async () => {
    const res = ok(await s.admin.api.get(`${s.base}/conversations`), 'list');
    expect(res.data.meta).toEqual({ mine_count: 1, unassigned_count: 3, assigned_count: 2, all_count: 5 });
    const ids = res.data.payload.map((x: any) => x.id);
    expect(ids.sort()).toEqual([c.c1, c.c2, c.c3, c.c4, c.c8].sort());
    res.data.payload.forEach(expectConversationShape);
    const order = res.data.payload.map((x: any) => [x.timestamp, x.id]);
    expect(order).toEqual([...order].sort((a: number[], b: number[]) => b[0] - a[0] || b[1] - a[1]));
    const mine = ok(await s.admin.api.get(`${s.base}/conversations?assignee_type=me`), 'mine');
    expect(mine.data.payload.map((x: any) => x.id)).toEqual([c.c3]);
    expect(mine.data.meta).toEqual(res.data.meta);
    const unassigned = ok(await s.admin.api.get(`${s.base}/conversations?assignee_type=unassigned`), 'unassigned');
    expect(unassigned.data.payload.map((x: any) => x.id).sort()).toEqual([c.c1, c.c4, c.c8].sort());
    const assigned = ok(await s.admin.api.get(`${s.base}/conversations?assignee_type=assigned`), 'assigned');
    expect(assigned.data.payload.map((x: any) => x.id).sort()).toEqual([c.c2, c.c3].sort());
  });

  it('applies status, inbox, team, labels and q to the list, and the agent scope', async () => {
    const ids = async (api: SeededAccount['admin']['api'], q: string) =>
      ok(await api.get(`${s.base}/conversations${q}`), q)
        .data.payload.map((x: any) => x.id)
        .sort();
    expect(await ids(s.admin.api, '?status=all')).toEqual(Object.values(c).sort());
    expect(await ids(s.admin.api, '?status=snoozed')).toEqual([c.c7]);
    expect(await ids(s.admin.api, `?inbox_id=${inboxB.id}&status=all`)).toEqual([c.c4, c.c5].sort());
    expect(await ids(s.admin.api, `?team_id=${team.id}`)).toEqual([c.c3]);
    expect(await ids(s.admin.api, '?labels[]=billing&status=all')).toEqual([c.c4, c.c5].sort());
    expect(await ids(s.admin.api, '?q=order')).toEqual([c.c2, c.c5, c.c6].sort());
    expect(await ids(s.agent.api, '?status=all')).toEqual([c.c1, c.c2, c.c3, c.c6, c.c7, c.c8].sort());
    const search = ok(await s.admin.api.get(`${s.base}/conversations/search?q=order`), 'search');
    expect(search.meta).toEqual({ mine_count: 0, unassigned_count: 2, all_count: 3 });
    expect(search.payload.map((x: any) => x.id).sort()).toEqual([c.c2, c.c5, c.c6].sort());
    const hit = search.payload.find((x: any) => x.id === c.c2);
    expect(hit).toEqual({
      id: c.c2,
      uuid: expect.any(String),
      created_at: expect.any(Number),
      contact: { id: expect.any(Number), name: expect.any(String) },
      inbox: { id: inboxA.id, name: expect.any(String), channel_type: 'Channel::Api' },
      messages: [
        {
          content: 'Where is my ORDER 42?',
          id: expect.any(Number),
          sender_name: expect.any(String),
          message_type: 0,
          created_at: expect.any(Number),
        },
      ],
      account_id: s.accountId,
    });
    expect(expectErrorBody(await s.admin.api.get(`${s.base}/conversations/search`), 422).errors[0].field).toBe('q');
  });

  it('is scoped to the account: another account sees none of it and cannot read this one', async () => {
    expectErrorBody(await other.admin.api.get(`${s.base}/conversations`), 404);
    expectErrorBody(await other.admin.api.get(`${s.base}/conversations/meta`), 404);
    const theirs = ok(await other.admin.api.get(`${other.base}/conversations/meta?status=all`), 'their meta');
    expect(theirs.meta.all_count).toBe(0);
  });

  it('pages by 25 without overlap', async () => {
    const fresh = await seedAccount();
    const [inbox, contact] = await Promise.all([newInbox(fresh), newContact(fresh)]);
    const made: number[] = [];
    for (let i = 0; i < 30; i += 10) {
      const batch = await Promise.all(
        Array.from({ length: 10 }, () => newConversation(fresh, { inbox_id: inbox.id, contact_id: contact.id })),
      );
      made.push(...batch.map((x) => x.id));
    }
    const page = async (n: number) => ok(await fresh.admin.api.get(`${fresh.base}/conversations?page=${n}`), `page ${n}`).data;
    const [p1, p2, p3] = await Promise.all([page(1), page(2), page(3)]);
    expect(p1.payload).toHaveLength(25);
    expect(p2.payload).toHaveLength(5);
    expect(p3.payload).toHaveLength(0);
    expect(p1.meta.all_count).toBe(30);
    const all = [...p1.payload, ...p2.payload].map((x: any) => x.id);
    expect(new Set(all).size).toBe(30);
    expect(all.sort((a, b) => a - b)).toEqual(made.sort((a, b) => a - b));
  });
});
