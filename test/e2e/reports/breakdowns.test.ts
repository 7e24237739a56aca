import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, seedAccount, type SeededAccount } from '../../support/runtime.ts';
import { untilState } from '../../support/until.ts';
import { addInboxMembers, newBot, newContact, newConversation, newInbox, newTeam, ok } from '../conversations/fixtures.ts';

// The rest of Chatwoot's v2 reports (conversations_summary, conversation_traffic, bot_metrics,
// first_response_time_distribution, inbox_label_matrix, outgoing_messages_count, year_in_review, the live
// reports) end to end: conversations and messages made through the API, the pipeline counts them, and
// every figure is checked against what the test itself made (a recount of the raw data).

const DAY = 86_400;
const IST = 19_800; // timezone_offset=5.5

describe('reports v2: traffic, bot metrics, distributions, matrix, year in review, live reports', { timeout: 180_000 }, () => {
  let s: SeededAccount;
  const V2 = () => `/api/v2/accounts/${s.accountId}`;
  let inboxA: { id: number; name: string };
  let inboxB: { id: number; name: string };
  let team: { id: number; name: string };
  let l1: { id: number; title: string };
  let l2: { id: number; title: string };
  let c1: Record<string, any>;
  let c2: Record<string, any>;
  let c3: Record<string, any>;
  let c4: Record<string, any>;
  let reply: Record<string, any>;
  let now: number;

  const msg = async (id: number, body: Record<string, unknown>, api = s.admin.api) =>
    ok(await api.post(`${s.base}/conversations/${id}/messages`, body), 'message');
  const get = (path: string, query: Record<string, string | number> = {}, api = s.admin.api) =>
    api.get(`${V2()}/${path}?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)] as [string, string]))}`);
  const range = () => ({ since: now - DAY, until: now + 60 });

  beforeAll(async () => {
    s = await seedAccount();
    const contact = await newContact(s);
    inboxA = await newInbox(s, { type: 'api' });
    inboxB = await newInbox(s, { type: 'api' });
    await addInboxMembers(s, inboxA.id, [s.agent.id]);
    const bot = await newBot(s);
    ok(await s.admin.api.post(`${s.base}/inboxes/${inboxB.id}/set_agent_bot`, { agent_bot: bot.id }), 'set bot');
    team = await newTeam(s, [s.agent.id]);
    l1 = ok(await s.admin.api.post(`${s.base}/labels`, { title: `b${s.accountId}` }), 'label');
    l2 = ok(await s.admin.api.post(`${s.base}/labels`, { title: `a${s.accountId}` }), 'label');

    // 1 (inbox A): the agent's, in the team, label 1; incoming and the agent's first reply (open, answered).
    c1 = await newConversation(s, { inbox_id: inboxA.id, contact_id: contact.id });
    ok(await s.admin.api.post(`${s.base}/conversations/${c1.id}/assignments`, { assignee_id: s.agent.id }), 'assign');
    ok(await s.admin.api.post(`${s.base}/conversations/${c1.id}/assignments`, { team_id: team.id }), 'team');
    ok(await s.admin.api.post(`${s.base}/conversations/${c1.id}/labels`, { labels: [l1.title] }), 'label');
    await msg(c1.id, { content: 'hello', message_type: 'incoming' });
    reply = await msg(c1.id, { content: 'hi' }, s.agent.api);
    // 2 (bot inbox, pending): label 2, an incoming message, the bot hands it off (open, unassigned, waiting).
    c2 = await newConversation(s, { inbox_id: inboxB.id, contact_id: contact.id });
    ok(await s.admin.api.post(`${s.base}/conversations/${c2.id}/labels`, { labels: [l2.title] }), 'label');
    await msg(c2.id, { content: 'human please', message_type: 'incoming' });
    ok(await bot.api.post(`${s.base}/conversations/${c2.id}/toggle_status`, { status: 'open' }), 'handoff');
    // 3 (inbox A): the agent's, put in the team while waiting (its unattended item moves to the team).
    c3 = await newConversation(s, { inbox_id: inboxA.id, contact_id: contact.id });
    ok(await s.admin.api.post(`${s.base}/conversations/${c3.id}/assignments`, { assignee_id: s.agent.id }), 'assign');
    await msg(c3.id, { content: 'anyone?', message_type: 'incoming' });
    ok(await s.admin.api.post(`${s.base}/conversations/${c3.id}/assignments`, { team_id: team.id }), 'team');
    // 4 (bot inbox): the bot resolves it.
    c4 = await newConversation(s, { inbox_id: inboxB.id, contact_id: contact.id });
    ok(await bot.api.post(`${s.base}/conversations/${c4.id}/toggle_status`, { status: 'resolved' }), 'bot resolves');
    now = Math.floor(Date.now() / 1000);
    // The pipeline has counted everything once the summary and the live counts say so.
    await untilState(
      async () => ok(await get('reports/summary', range()), 'summary'),
      (r) => r.conversations_count === 4 && r.incoming_messages_count === 3 && r.avg_first_response_time != null,
    );
    await untilState(
      async () => ok(await get('reports/bot_summary', range()), 'bot summary'),
      (r) => r.bot_resolutions_count === 1 && r.bot_handoffs_count === 1,
    );
    await untilState(
      async () => ok(await get('live_reports/conversation_metrics', { team_id: team.id }), 'live'),
      (r) => r.unattended === 1,
    );
  }, 170_000);

  const firstResponse = () => reply.created_at - c1.created_at;

  it('conversations_summary: the account summary as Chatwoot’s CSV', async () => {
    const res = await get('reports/conversations_summary', range());
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('content-disposition')).toContain('conversations_summary_report.csv');
    const day = (t: number) => new Date(t * 1000).toISOString().slice(0, 10);
    expect(res.text.split('\n')).toEqual([
      `Reporting period ${day(range().since)} to ${day(range().until)}`,
      '',
      'Conversations,Messages received,Messages sent,Avg first response time,Avg resolution time,Resolution count,Avg customer waiting time',
      // 4 conversations, 3 incoming, 1 reply; conversation 4's resolution took under a second or a few.
      expect.stringMatching(/^4,3,1,[^,]+,[^,]+,1,--$/),
      '',
    ]);
  });

  it('conversation_traffic: conversations per local hour of the last seven days, with the zone', async () => {
    const res = await get('reports/conversation_traffic', { timezone_offset: 5.5 });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain('conversation_traffic_reports.csv');
    const lines = res.text.trim().split('\n');
    expect(lines[0]).toBe('Timezone,(GMT+05:30) Chennai');
    expect(lines[1]).toBe('');
    const localDay = (t: number) => new Date((t + IST) * 1000).toISOString().slice(0, 10);
    expect(lines[2]).toBe(['Start of the hour', ...[6, 5, 4, 3, 2, 1, 0].map((d) => localDay(now - d * DAY))].join(','));
    const rows = lines.slice(3).map((l) => l.split(','));
    expect(rows.map((r) => r[0])).toEqual(Array.from({ length: 24 }, (_, h) => `${String(h).padStart(2, '0')}:00`));
    // Every conversation in the hour (India time) it was made in, today's column.
    const expected = Array.from({ length: 24 }, () => [0, 0, 0, 0, 0, 0, 0]);
    for (const c of [c1, c2, c3, c4]) expected[Math.floor(((c.created_at + IST) % DAY) / 3600)]![6]! += 1;
    expect(rows.map((r) => r.slice(1).map(Number))).toEqual(expected);
    expect(expectErrorBody(await get('reports/conversation_traffic', { timezone_offset: 'x' }), 422)).toBeTruthy();
  });

  it('bot_metrics: the bot inbox’s conversations and messages, and the bot’s rates', async () => {
    expect(ok(await get('reports/bot_metrics', range()), 'bot metrics')).toEqual({
      conversation_count: 2,
      message_count: 0,
      resolution_rate: 50,
      handoff_rate: 50,
    });
    // Without a range Chatwoot counts nothing.
    expect(ok(await get('reports/bot_metrics'), 'bot metrics')).toEqual({
      conversation_count: 0,
      message_count: 0,
      resolution_rate: 0,
      handoff_rate: 0,
    });
  });

  it('first_response_time_distribution: first responses by time taken, keyed by channel type', async () => {
    const bucket = firstResponse() < 3600 ? '0-1h' : '1-4h';
    const expected = { 'Channel::Api': { '0-1h': 0, '1-4h': 0, '4-8h': 0, '8-24h': 0, '24h+': 0, [bucket]: 1 } };
    expect(ok(await get('reports/first_response_time_distribution', range()), 'frt')).toEqual(expected);
    // Without a range: everything.
    expect(ok(await get('reports/first_response_time_distribution'), 'frt')).toEqual(expected);
    expect(ok(await get('reports/first_response_time_distribution', { since: now - 3 * DAY, until: now - 2 * DAY }), 'frt')).toEqual({});
  });

  it('inbox_label_matrix: conversations by inbox and label, inboxes by name and labels by title', async () => {
    const inboxes = [inboxA, inboxB].sort((a, b) => (a.name < b.name ? -1 : 1));
    const labels = [l2, l1];
    const m = ok(await get('reports/inbox_label_matrix', range()), 'matrix');
    expect(m.inboxes).toEqual(inboxes.map((i) => ({ id: i.id, name: i.name })));
    expect(m.labels).toEqual(labels.map((l) => ({ id: l.id, title: l.title })));
    const count = (i: { id: number }, l: { id: number }) =>
      (i.id === inboxA.id && l.id === l1.id) || (i.id === inboxB.id && l.id === l2.id) ? 1 : 0;
    expect(m.matrix).toEqual(inboxes.map((i) => labels.map((l) => count(i, l))));
    const only = ok(await get('reports/inbox_label_matrix', { ...range(), 'inbox_ids[]': inboxB.id, 'label_ids[]': l2.id }), 'matrix');
    expect(only).toEqual({ inboxes: [{ id: inboxB.id, name: inboxB.name }], labels: [{ id: l2.id, title: l2.title }], matrix: [[1]] });
  });

  it('outgoing_messages_count: per agent, team, inbox and label; 422 without a valid group_by', async () => {
    const by = async (group_by: string) => ok(await get('reports/outgoing_messages_count', { ...range(), group_by }), group_by);
    expect(await by('agent')).toEqual([{ id: s.agent.id, name: expect.any(String), outgoing_messages_count: 1 }]);
    expect(await by('team')).toEqual([{ id: team.id, name: team.name, outgoing_messages_count: 1 }]);
    expect(await by('inbox')).toEqual([{ id: inboxA.id, name: inboxA.name, outgoing_messages_count: 1 }]);
    expect(await by('label')).toEqual([{ id: l1.id, name: l1.title, outgoing_messages_count: 1 }]);
    expect((await get('reports/outgoing_messages_count', { ...range(), group_by: 'contact' })).status).toBe(422);
    expect((await get('reports/outgoing_messages_count', range())).status).toBe(422);
  });

  it('year_in_review: the caller’s conversations, busiest day and first response, for any member', async () => {
    const year = new Date(now * 1000).getUTCFullYear();
    const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
    const d = new Date(c1.created_at * 1000);
    const mine = ok(await s.agent.api.get(`${V2()}/year_in_review?year=${year}`), 'year');
    expect(mine).toEqual({
      year,
      total_conversations: 2,
      busiest_day: { date: `${months[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, '0')}`, count: 2 },
      support_personality: { avg_response_time_seconds: firstResponse() },
    });
    expect(ok(await get('year_in_review', { year: year - 1 }), 'admin year')).toEqual({
      year: year - 1,
      total_conversations: 0,
      busiest_day: null,
      support_personality: { avg_response_time_seconds: 0 },
    });
    expect((await get('year_in_review', { year: 'soon' })).status).toBe(422);
  });

  it('live reports: open, unattended, unassigned and pending, whole or of a team, and grouped', async () => {
    expect(ok(await get('live_reports/conversation_metrics'), 'live')).toEqual({ open: 3, unattended: 2, unassigned: 1, pending: 0 });
    expect(ok(await get('live_reports/conversation_metrics', { team_id: team.id }), 'live team')).toEqual({
      open: 2,
      unattended: 1,
      unassigned: 0,
      pending: 0,
    });
    expect(ok(await get('live_reports/grouped_conversation_metrics', { group_by: 'assignee_id' }), 'by agent')).toEqual([
      { open: 2, unattended: 1, unassigned: 0, assignee_id: s.agent.id },
      { open: 1, unattended: 1, unassigned: 1, assignee_id: null },
    ]);
    expect(ok(await get('live_reports/grouped_conversation_metrics', { group_by: 'team_id' }), 'by team')).toEqual([
      { open: 2, unattended: 1, unassigned: 0, team_id: team.id },
      { open: 1, unattended: 1, unassigned: 1, team_id: null },
    ]);
    expect((await get('live_reports/grouped_conversation_metrics', { group_by: 'inbox_id' })).status).toBe(422);
  });

  it('administrators only (year in review aside)', async () => {
    for (const path of [
      'reports/conversations_summary',
      'reports/conversation_traffic',
      'reports/bot_metrics',
      'reports/first_response_time_distribution',
      'reports/inbox_label_matrix',
      'reports/outgoing_messages_count',
      'live_reports/conversation_metrics',
      'live_reports/grouped_conversation_metrics',
    ]) {
      expectErrorBody(await get(path, { ...range(), group_by: 'agent' }, s.agent.api), 403);
    }
  });

  it('a suspended account is refused on them (403 account_suspended), and answered again once active', async () => {
    const setStatus = async (status: string) =>
      expect((await s.platform.patch(`/platform/api/v1/accounts/${s.accountId}`, { status })).status).toBe(200);
    await setStatus('suspended');
    try {
      for (const [path, api] of [
        ['reports/inbox_label_matrix', s.admin.api],
        ['live_reports/conversation_metrics', s.admin.api],
        ['year_in_review', s.agent.api],
      ] as const) {
        expect(expectErrorBody(await get(path, {}, api), 403).errors[0].code, path).toBe('account_suspended');
      }
    } finally {
      await setStatus('active');
    }
    expect((await get('live_reports/conversation_metrics')).status).toBe(200);
  });
});
