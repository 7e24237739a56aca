import { beforeAll, describe, expect, it } from 'vitest';
import { eventsOf } from '#shared/domain/events/domain-events.ts';
import { conversationContext } from '#shared/domain/events/payloads.ts';
import { recordReports } from '#shared/domain/reports/pipeline.ts';
import { rebuildAccountReports } from '#shared/domain/reports/rebuild.ts';
import { dayKey } from '#shared/model/report-buckets.ts';
import { putAggregate } from '#shared/db/repositories/report-aggregates.ts';
import * as keys from '#shared/db/keys.ts';
import { expectErrorBody, fieldsOf, seedAccount, type SeededAccount } from '../../support/runtime.ts';
import { untilState } from '../../support/until.ts';
import { streamChanges } from '../../support/stream.ts';
import { addInboxMembers, newBot, newContact, newConversation, newInbox, newTeam, ok } from '../conversations/fixtures.ts';

// Reports end to end: conversations, incoming messages, agent replies, a bot handoff and resolutions
// driven through the API; the pipeline records reporting events and aggregates; every report's
// figures are checked exactly against the times the API itself answered.

const DAY = 86_400;
const IST = 19_800; // timezone_offset=5.5
const week = (open: boolean) => Array.from({ length: 7 }, (_, d) => ({ day_of_week: d, closed_all_day: !open, open_all_day: open }));

type Ev = {
  id: number;
  name: string;
  value: number;
  value_in_business_hours: number;
  event_start_time: string;
  event_end_time: string;
  user_id: number | null;
  inbox_id: number;
  conversation_id: number;
  created_at: number;
};
const secs = (iso: string) => Date.parse(iso) / 1000;

describe('reports (pipeline aggregates, Chatwoot v2 reports)', { timeout: 180_000 }, () => {
  let s: SeededAccount;
  let other: SeededAccount;
  const V2 = () => `/api/v2/accounts/${s.accountId}`;
  let inboxA: { id: number };
  let inboxB: { id: number };
  let team: { id: number };
  let label: { id: number; title: string };
  let c1: Record<string, any>;
  let c2: Record<string, any>;
  let c3: Record<string, any>;
  let in1: Record<string, any>;
  let reply1: Record<string, any>;
  let in2: Record<string, any>;
  let reply2: Record<string, any>;
  let events1: Ev[];
  let events2: Ev[];
  let events3: Ev[];
  let now: number;

  const msg = async (id: number, body: Record<string, unknown>, api = s.admin.api) =>
    ok(await api.post(`${s.base}/conversations/${id}/messages`, body), 'message');
  const status = async (id: number, st: string, api = s.admin.api) =>
    ok(await api.post(`${s.base}/conversations/${id}/toggle_status`, { status: st }), 'status');
  const eventsOfConversation = async (id: number) =>
    ok(await s.admin.api.get(`${s.base}/conversations/${id}/reporting_events`), 'events').payload as Ev[];
  const waitEvents = (id: number, names: string[]) =>
    untilState(
      () => eventsOfConversation(id),
      (evs) => names.every((n) => evs.filter((e) => e.name === n).length === names.filter((x) => x === n).length),
    );
  const report = async (query: Record<string, string | number | boolean>, api = s.admin.api) =>
    api.get(`${V2()}/reports?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)] as [string, string]))}`);
  const q = (extra: Record<string, string | number | boolean> = {}) => ({ since: now - 2 * DAY, until: now + DAY, ...extra });

  beforeAll(async () => {
    s = await seedAccount();
    other = await seedAccount();
    const contact = await newContact(s);
    // Inbox A counts every hour as business time (in India's zone); inbox B (a bot's) none.
    inboxA = await newInbox(s, { type: 'api' }, { working_hours_enabled: true, timezone: 'Asia/Kolkata', working_hours: week(true) });
    inboxB = await newInbox(s, { type: 'api' }, { working_hours_enabled: true, timezone: 'America/New_York', working_hours: week(false) });
    await addInboxMembers(s, inboxA.id, [s.agent.id]);
    const bot = await newBot(s);
    ok(await s.admin.api.post(`${s.base}/inboxes/${inboxB.id}/set_agent_bot`, { agent_bot: bot.id }), 'set bot');
    team = await newTeam(s, [s.agent.id]);
    label = ok(await s.admin.api.post(`${s.base}/labels`, { title: `vip${s.accountId}` }), 'label');

    // Conversation 1 (inbox A): assigned, labelled and in a team before any message; incoming, first
    // reply, incoming, reply, resolved, reopened.
    c1 = await newConversation(s, { inbox_id: inboxA.id, contact_id: contact.id });
    ok(await s.admin.api.post(`${s.base}/conversations/${c1.id}/assignments`, { assignee_id: s.agent.id }), 'assign');
    ok(await s.admin.api.post(`${s.base}/conversations/${c1.id}/assignments`, { team_id: team.id }), 'team');
    ok(await s.admin.api.post(`${s.base}/conversations/${c1.id}/labels`, { labels: [label.title] }), 'label');
    in1 = await msg(c1.id, { content: 'hello', message_type: 'incoming' });
    reply1 = await msg(c1.id, { content: 'hi, how can I help?' }, s.agent.api);
    in2 = await msg(c1.id, { content: 'my order', message_type: 'incoming' });
    reply2 = await msg(c1.id, { content: 'on its way' }, s.agent.api);
    await status(c1.id, 'resolved');
    await waitEvents(c1.id, ['first_response', 'reply_time', 'conversation_resolved']);
    await status(c1.id, 'open');
    events1 = await waitEvents(c1.id, ['first_response', 'reply_time', 'conversation_resolved', 'conversation_opened']);

    // Conversation 2 (bot inbox, starts pending): the bot hands it off.
    c2 = await newConversation(s, { inbox_id: inboxB.id, contact_id: contact.id });
    expect(c2.status).toBe('pending');
    await msg(c2.id, { content: 'human please', message_type: 'incoming' });
    await status(c2.id, 'open', bot.api);
    events2 = await waitEvents(c2.id, ['conversation_opened', 'conversation_bot_handoff']);

    // Conversation 3 (bot inbox): the bot resolves it without a human reply.
    c3 = await newConversation(s, { inbox_id: inboxB.id, contact_id: contact.id });
    await status(c3.id, 'resolved', bot.api);
    events3 = await waitEvents(c3.id, ['conversation_resolved', 'conversation_bot_resolved']);
    now = Math.floor(Date.now() / 1000);
    // Some thirty API calls and three waits on the pipeline: more than the default hook time on a busy machine.
  }, 170_000);

  const one = (evs: Ev[], name: string) => {
    const found = evs.filter((e) => e.name === name);
    expect(found, name).toHaveLength(1);
    return found[0]!;
  };

  it('records reporting events with their values in seconds and in business hours', () => {
    const fr = one(events1, 'first_response');
    expect(fr).toMatchObject({
      id: expect.any(Number),
      value: reply1.created_at - c1.created_at,
      value_in_business_hours: reply1.created_at - c1.created_at,
      user_id: s.agent.id,
      inbox_id: inboxA.id,
      conversation_id: c1.id,
      created_at: reply1.created_at,
    });
    expect(secs(fr.event_start_time)).toBe(c1.created_at);
    expect(secs(fr.event_end_time)).toBe(reply1.created_at);
    const rt = one(events1, 'reply_time');
    expect(rt).toMatchObject({
      value: reply2.created_at - in2.created_at,
      value_in_business_hours: reply2.created_at - in2.created_at,
      user_id: s.agent.id,
    });
    expect(secs(rt.event_start_time)).toBe(in2.created_at);
    const rs = one(events1, 'conversation_resolved');
    expect(secs(rs.event_start_time)).toBe(c1.created_at);
    expect(rs.value).toBe(secs(rs.event_end_time) - c1.created_at);
    expect(rs.value).toBeGreaterThanOrEqual(reply2.created_at - c1.created_at);
    expect(rs.value_in_business_hours).toBe(rs.value);
    expect(rs.user_id).toBe(s.agent.id);
    const op = one(events1, 'conversation_opened');
    // A reopening measures the time since the resolution.
    expect(secs(op.event_start_time)).toBe(secs(rs.event_end_time));
    expect(op.value).toBe(secs(op.event_end_time) - secs(rs.event_end_time));

    const handoff = one(events2, 'conversation_bot_handoff');
    expect(handoff.value).toBe(secs(handoff.event_end_time) - c2.created_at);
    // Inbox B is never open: no business time.
    expect(handoff.value_in_business_hours).toBe(0);
    // A first opening is worth 0.
    expect(one(events2, 'conversation_opened')).toMatchObject({ value: 0, value_in_business_hours: 0 });
    const botResolved = one(events3, 'conversation_bot_resolved');
    expect(botResolved.value).toBe(one(events3, 'conversation_resolved').value);
    expect(botResolved.value_in_business_hours).toBe(0);
  });

  it('lists the account reporting events, newest first, filtered and paginated', async () => {
    const all = ok(await s.admin.api.get(`/api/v1/accounts/${s.accountId}/reporting_events`), 'list');
    expect(all.meta).toEqual({ count: 8, current_page: 1, total_pages: 1 });
    expect(all.payload.map((e: Ev) => e.created_at)).toEqual([...all.payload.map((e: Ev) => e.created_at)].sort((a, b) => b - a));
    const resolved = ok(await s.admin.api.get(`/api/v1/accounts/${s.accountId}/reporting_events?event_name=conversation_resolved`), 'list');
    expect(resolved.payload.map((e: Ev) => e.conversation_id).sort()).toEqual([c1.id, c3.id].sort());
    const byInbox = ok(await s.admin.api.get(`/api/v1/accounts/${s.accountId}/reporting_events?inbox_id=${inboxB.id}`), 'list');
    expect(byInbox.meta.count).toBe(4);
    expect(
      fieldsOf(expectErrorBody(await s.admin.api.get(`/api/v1/accounts/${s.accountId}/reporting_events?event_name=nope`), 422)),
    ).toEqual({ event_name: 'invalid' });
  });

  const firstResponse = () => reply1.created_at - c1.created_at;
  const replyTime = () => reply2.created_at - in2.created_at;
  const resolution1 = () => one(events1, 'conversation_resolved').value;
  const resolution3 = () => one(events3, 'conversation_resolved').value;
  const todayIst = () => Math.floor((now + IST) / DAY) * DAY - IST;

  it('answers every metric as a daily series in the asked timezone, exactly', async () => {
    const expected: Record<string, { value: number; count?: number }> = {
      conversations_count: { value: 3 },
      incoming_messages_count: { value: 3 },
      outgoing_messages_count: { value: 2 },
      avg_first_response_time: { value: firstResponse(), count: 1 },
      avg_resolution_time: { value: (resolution1() + resolution3()) / 2, count: 2 },
      resolutions_count: { value: 2 },
      bot_resolutions_count: { value: 1 },
      bot_handoffs_count: { value: 1 },
      reply_time: { value: replyTime(), count: 1 },
    };
    for (const [metric, point] of Object.entries(expected)) {
      const series = ok(await report(q({ metric, timezone_offset: 5.5 })), metric) as {
        value: number;
        timestamp: number;
        count?: number;
      }[];
      // Local (India) midnights, every day of the range, the figures on today's.
      expect(
        series.map((p) => p.timestamp),
        metric,
      ).toEqual(
        [todayIst() - 2 * DAY, todayIst() - DAY, todayIst(), todayIst() + DAY].filter((t) => t + DAY > now - 2 * DAY && t < now + DAY),
      );
      const today = series.find((p) => p.timestamp === todayIst())!;
      expect(today, metric).toEqual({ timestamp: todayIst(), ...point });
      for (const p of series.filter((x) => x.timestamp !== todayIst()))
        expect(p, metric).toEqual({ timestamp: p.timestamp, value: 0, ...(point.count !== undefined ? { count: 0 } : {}) });
    }
  });

  it('business_hours=true answers the averages in business seconds; other offsets and periods group the same figures', async () => {
    const bh = ok(await report(q({ metric: 'avg_resolution_time', business_hours: true, timezone_offset: 5.5 })), 'bh') as {
      value: number;
      timestamp: number;
      count: number;
    }[];
    // Conversation 3 (inbox B) resolved outside business hours: 0 business seconds.
    expect(bh.find((p) => p.timestamp === todayIst())).toEqual({ timestamp: todayIst(), value: resolution1() / 2, count: 2 });
    const month = ok(await report(q({ metric: 'conversations_count', group_by: 'month', timezone_offset: -3.5 })), 'month') as {
      value: number;
    }[];
    expect(month.reduce((a, p) => a + p.value, 0)).toBe(3);
    const nepal = ok(await report(q({ metric: 'incoming_messages_count', timezone_offset: 5.75 })), 'nepal') as {
      value: number;
      timestamp: number;
    }[];
    const todayNepal = Math.floor((now + 20_700) / DAY) * DAY - 20_700;
    expect(nepal.find((p) => p.value)).toEqual({ timestamp: todayNepal, value: 3 });
  });

  it('scopes series by agent, inbox, team and label', async () => {
    const value = async (metric: string, type: string, id: number) =>
      (ok(await report(q({ metric, type, id, group_by: 'year' })), `${type} ${metric}`) as { value: number }[]).reduce(
        (a, p) => a + p.value,
        0,
      );
    expect(await value('conversations_count', 'agent', s.agent.id)).toBe(1);
    expect(await value('outgoing_messages_count', 'agent', s.agent.id)).toBe(2);
    expect(await value('resolutions_count', 'agent', s.agent.id)).toBe(1);
    expect(await value('conversations_count', 'agent', s.admin.id)).toBe(0);
    expect(await value('conversations_count', 'inbox', inboxB.id)).toBe(2);
    expect(await value('bot_handoffs_count', 'inbox', inboxB.id)).toBe(1);
    expect(await value('bot_resolutions_count', 'inbox', inboxB.id)).toBe(1);
    expect(await value('incoming_messages_count', 'inbox', inboxA.id)).toBe(2);
    for (const [type, id] of [
      ['team', team.id],
      ['label', label.id],
    ] as const) {
      expect(await value('conversations_count', type, id)).toBe(1);
      expect(await value('incoming_messages_count', type, id)).toBe(2);
      expect(await value('outgoing_messages_count', type, id)).toBe(2);
      expect(await value('avg_first_response_time', type, id)).toBe(firstResponse());
    }
  });

  it('summary and bot_summary carry the period before as previous', async () => {
    const range = { since: now - 3600, until: now + 60 };
    const res = ok(
      await s.admin.api.get(
        `${V2()}/reports/summary?${new URLSearchParams({ since: String(range.since), until: String(range.until), type: 'account' })}`,
      ),
      'summary',
    );
    expect(res).toEqual({
      conversations_count: 3,
      incoming_messages_count: 3,
      outgoing_messages_count: 2,
      avg_first_response_time: firstResponse(),
      avg_resolution_time: (resolution1() + resolution3()) / 2,
      resolutions_count: 2,
      reply_time: replyTime(),
      previous: {
        conversations_count: 0,
        incoming_messages_count: 0,
        outgoing_messages_count: 0,
        avg_first_response_time: null,
        avg_resolution_time: null,
        resolutions_count: 0,
        reply_time: null,
      },
    });
    const bots = ok(await s.admin.api.get(`${V2()}/reports/bot_summary?since=${range.since}&until=${range.until}`), 'bot summary');
    expect(bots).toEqual({
      bot_resolutions_count: 1,
      bot_handoffs_count: 1,
      previous: { bot_resolutions_count: 0, bot_handoffs_count: 0 },
    });
  });

  it('reports/conversations: live open, unattended, unassigned and pending; per agent', async () => {
    // c1: open, the agent's, answered. c2: open, unassigned, never answered. c3: resolved.
    const live = await untilState(
      async () => ok(await s.admin.api.get(`${V2()}/reports/conversations?type=account`), 'live'),
      (v) => v.unattended === 1,
    );
    expect(live).toEqual({ open: 2, unattended: 1, unassigned: 1, pending: 0 });
    const agents = ok(await s.admin.api.get(`${V2()}/reports/conversations?type=agent`), 'agents') as any[];
    expect(agents[0]).toMatchObject({
      id: s.agent.id,
      name: expect.any(String),
      email: expect.any(String),
      availability: expect.any(String),
      metric: { open: 1, unattended: 0 },
    });
    expect(agents.find((a) => a.id === s.admin.id).metric).toEqual({ open: 0, unattended: 0 });
    expect(fieldsOf(expectErrorBody(await s.admin.api.get(`${V2()}/reports/conversations`), 422))).toEqual({ type: 'required' });
  });

  it('summary_reports per agent, inbox, team, label and channel', async () => {
    const qs = `since=${now - DAY}&until=${now + 60}`;
    const agents = ok(await s.admin.api.get(`${V2()}/summary_reports/agent?${qs}`), 'agent') as any[];
    expect(agents.find((a) => a.id === s.agent.id)).toEqual({
      id: s.agent.id,
      conversations_count: 1,
      resolved_conversations_count: 1,
      avg_resolution_time: resolution1(),
      avg_first_response_time: firstResponse(),
      avg_reply_time: replyTime(),
    });
    expect(agents.find((a) => a.id === s.admin.id)).toEqual({
      id: s.admin.id,
      conversations_count: 0,
      resolved_conversations_count: 0,
      avg_resolution_time: null,
      avg_first_response_time: null,
      avg_reply_time: null,
    });
    const inboxes = ok(await s.admin.api.get(`${V2()}/summary_reports/inbox?${qs}&business_hours=true`), 'inbox') as any[];
    expect(inboxes.find((i) => i.id === inboxB.id)).toEqual({
      id: inboxB.id,
      conversations_count: 2,
      resolved_conversations_count: 1,
      avg_resolution_time: 0,
      avg_first_response_time: null,
      avg_reply_time: null,
    });
    const teams = ok(await s.admin.api.get(`${V2()}/summary_reports/team?${qs}`), 'team') as any[];
    expect(teams).toEqual([
      {
        id: team.id,
        conversations_count: 1,
        resolved_conversations_count: 1,
        avg_resolution_time: resolution1(),
        avg_first_response_time: firstResponse(),
        avg_reply_time: replyTime(),
      },
    ]);
    const labels = ok(await s.admin.api.get(`${V2()}/summary_reports/label?${qs}`), 'label') as any[];
    expect(labels).toEqual([
      {
        id: label.id,
        name: label.title,
        conversations_count: 1,
        resolved_conversations_count: 1,
        avg_resolution_time: resolution1(),
        avg_first_response_time: firstResponse(),
        avg_reply_time: replyTime(),
      },
    ]);
    const channels = ok(await s.admin.api.get(`${V2()}/summary_reports/channel?${qs}`), 'channel');
    expect(channels).toEqual({ 'Channel::Api': { open: 2, resolved: 1, pending: 0, snoozed: 0, total: 3 } });
  });

  it('CSV downloads', async () => {
    const res = await s.admin.api.get(`${V2()}/reports/agents?since=${now - DAY}&until=${now + 60}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = res.text.trim().split('\n');
    expect(lines[0]).toBe(
      'Agent name,Assigned conversations,Avg first response time,Avg resolution time,Resolution Count,Avg customer waiting time',
    );
    expect(lines.slice(1, -1)).toHaveLength(2);
    expect(lines.at(-1)).toMatch(/^Reporting period \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d$/);
    const inboxes = await s.admin.api.get(`${V2()}/reports/inboxes?since=${now - DAY}&until=${now + 60}`);
    expect(inboxes.text.split('\n')[0]).toBe('Inbox name,Inbox type,No. of conversations,Avg first response time,Avg resolution time');
    expect(inboxes.text).toContain(',Channel::Api,2,--,');
    for (const kind of ['labels', 'teams'])
      expect((await s.admin.api.get(`${V2()}/reports/${kind}?since=${now - DAY}&until=${now + 60}`)).text.split('\n')).toHaveLength(4);
  });

  it('a redelivered event adds nothing', async () => {
    const before = ok(await report(q({ metric: 'incoming_messages_count', group_by: 'year' })), 'before');
    const changes = await streamChanges((ch) => ch.type === 'message' && ch.action === 'INSERT' && ch.newImage?.id === in1.id);
    const conv = await streamChanges(
      (ch) =>
        ch.type === 'conversation' &&
        ch.action === 'MODIFY' &&
        ch.newImage?.id === c1.id &&
        ch.newImage?.account_id === s.accountId &&
        ch.newImage?.first_reply_created_at != null &&
        ch.oldImage?.first_reply_created_at == null,
    );
    expect(changes).toHaveLength(1);
    expect(conv).toHaveLength(1);
    for (const change of [...changes, ...conv]) {
      for (const event of eventsOf(change)) await recordReports(event, await conversationContext(event.accountId, c1.id));
    }
    expect(ok(await report(q({ metric: 'incoming_messages_count', group_by: 'year' })), 'after')).toEqual(before);
    expect((await eventsOfConversation(c1.id)).filter((e) => e.name === 'first_response')).toHaveLength(1);
  });

  it('the rebuild command recomputes the aggregates from the stored facts', async () => {
    const query = q({ metric: 'conversations_count', timezone_offset: 5.5 });
    const before = ok(await report(query), 'before');
    // Damage: today's account day item overwritten, a stray item on a day without facts.
    const series = keys.reportSeries.account();
    await putAggregate(keys.reportDay(s.accountId, series, dayKey(now)), { type: 'report_day', account_id: s.accountId, series, cc: 100 });
    await putAggregate(keys.reportDay(s.accountId, series, dayKey(now - DAY)), {
      type: 'report_day',
      account_id: s.accountId,
      series,
      cc: 7,
    });
    expect(ok(await report(query), 'damaged')).not.toEqual(before);
    const result = await rebuildAccountReports(s.accountId);
    expect(result.removed).toBe(1);
    expect(result.facts).toBeGreaterThan(10);
    expect(ok(await report(query), 'rebuilt')).toEqual(before);
  });

  it('validates parameters (422) and finds nothing of other accounts (404); agents are refused (403)', async () => {
    const bad = async (query: Record<string, string | number>) => fieldsOf(expectErrorBody(await report(query as never), 422));
    expect(await bad({ since: now, until: now + 1 })).toEqual({ metric: 'required' });
    expect(await bad({ metric: 'nope', since: now, until: now + 1 })).toEqual({ metric: 'invalid' });
    expect(await bad({ metric: 'conversations_count', until: now })).toEqual({ since: 'required' });
    expect(await bad({ metric: 'conversations_count', since: now, until: now - 5 })).toEqual({ until: 'invalid' });
    expect(await bad({ metric: 'conversations_count', since: now, until: now + 1, group_by: 'hourly' })).toEqual({ group_by: 'invalid' });
    expect(await bad({ metric: 'conversations_count', since: now, until: now + 1, timezone_offset: '5.3' })).toEqual({
      timezone_offset: 'invalid',
    });
    expect(await bad({ metric: 'conversations_count', since: now, until: now + 1, type: 'contact' })).toEqual({ type: 'invalid' });
    expect(await bad({ metric: 'conversations_count', since: now, until: now + 1, type: 'inbox' })).toEqual({ id: 'required' });
    const theirs = await newInbox(other);
    expectErrorBody(await report({ metric: 'conversations_count', since: now, until: now + 1, type: 'inbox', id: theirs.id }), 404);
    expectErrorBody(await other.admin.api.get(`${V2()}/reports/summary?since=${now}&until=${now + 1}`), 404);
    expectErrorBody(await s.admin.api.get(`${s.base}/conversations/999999/reporting_events`), 404);
    for (const path of ['/reports/summary', '/reports/conversations?type=account', '/summary_reports/agent', '/reports/agents']) {
      expectErrorBody(await s.agent.api.get(`${V2()}${path}${path.includes('?') ? '&' : '?'}since=${now}&until=${now + 1}`), 403);
    }
    expectErrorBody(await s.agent.api.get(`${s.base}/reporting_events`), 403);
  });
});
