import { beforeAll, describe, expect, it } from 'vitest';
import { rebuildAccountReports } from '#shared/domain/reports/rebuild.ts';
import { readableDuration } from '#shared/domain/reports/service.ts';
import { seedAccount, type SeededAccount } from '../../support/runtime.ts';
import { until } from '../../support/until.ts';
import { addInboxMembers, newBot, newContact, newConversation, newInbox, newTeam, ok } from '../conversations/fixtures.ts';

// Report figures equal a recount (issue #32): a seeded mix of conversations and messages (two API inboxes and a bot
// inbox; labels, a team, one or two incoming messages, replies by the administrator or the agent, resolutions, bot
// resolutions and handoffs) driven through the API and the pipeline; every reports v2 figure (conversations_summary,
// bot_metrics, outgoing_messages_count, first_response_time_distribution, inbox_label_matrix, conversation_traffic)
// must equal what the test recounts from the conversations and messages it made, and again after the account's
// aggregates are rebuilt from their facts (rebuildAccountReports, what `npm run reports:rebuild` runs).

/** mulberry32: a small seeded generator, so the mix is the same on every run. */
function generator(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface Made {
  id: number;
  inbox: number;
  created_at: number;
  labels: number[];
  team: number | null;
  incoming: number;
  /** The users who replied, in order (each reply one outgoing message). */
  replies: number[];
  /** When the first reply was made. */
  firstReplyAt: number | null;
  resolved: boolean;
  bot: 'resolved' | 'handoff' | null;
}

type Row = { id: number; name: string; outgoing_messages_count: number };

describe('reports v2 equal a recount of the raw conversations and messages', { timeout: 300_000 }, () => {
  let s: SeededAccount;
  const V2 = () => `/api/v2/accounts/${s.accountId}`;
  let inboxes: { id: number; name: string }[];
  let botInbox: { id: number; name: string };
  let labels: { id: number; title: string }[];
  let team: { id: number; name: string };
  const made: Made[] = [];
  let since: number;
  let until_: number;
  const get = (path: string, q: Record<string, string | number> = {}) =>
    s.admin.api.get(`${V2()}/${path}?${new URLSearchParams(Object.entries(q).map(([k, v]) => [k, String(v)] as [string, string]))}`);

  beforeAll(async () => {
    s = await seedAccount();
    since = Math.floor(Date.now() / 1000) - 60;
    const contact = await newContact(s);
    const a = await newInbox(s, { type: 'api' });
    const b = await newInbox(s, { type: 'api' });
    botInbox = await newInbox(s, { type: 'api' });
    inboxes = [a, b, botInbox];
    for (const i of inboxes) await addInboxMembers(s, i.id, [s.agent.id]);
    const bot = await newBot(s);
    ok(await s.admin.api.post(`${s.base}/inboxes/${botInbox.id}/set_agent_bot`, { agent_bot: bot.id }), 'set bot');
    team = await newTeam(s, [s.agent.id]);
    labels = [];
    for (const t of ['red', 'blue']) labels.push(ok(await s.admin.api.post(`${s.base}/labels`, { title: `${t}${s.accountId}` }), 'label'));

    const random = generator(32);
    const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!;
    const users = [s.admin, s.agent];
    for (let n = 0; n < 14; n++) {
      const inbox = pick(inboxes);
      const isBot = inbox.id === botInbox.id;
      const c = await newConversation(s, { inbox_id: inbox.id, contact_id: contact.id });
      const row: Made = {
        id: c.id,
        inbox: inbox.id,
        created_at: c.created_at,
        labels: labels.filter(() => random() < 0.5).map((l) => l.id),
        team: !isBot && random() < 0.4 ? team.id : null,
        incoming: 1 + Math.floor(random() * 2),
        replies: [],
        firstReplyAt: null,
        resolved: false,
        bot: null,
      };
      const titles = labels.filter((l) => row.labels.includes(l.id)).map((l) => l.title);
      if (titles.length) ok(await s.admin.api.post(`${s.base}/conversations/${c.id}/labels`, { labels: titles }), 'labels');
      if (row.team) ok(await s.admin.api.post(`${s.base}/conversations/${c.id}/assignments`, { team_id: row.team }), 'team');
      for (let k = 0; k < row.incoming; k++) {
        ok(await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: `q${k}`, message_type: 'incoming' }), 'incoming');
      }
      if (isBot) {
        row.bot = pick(['resolved', 'handoff', null] as const);
        if (row.bot)
          ok(
            await bot.api.post(`${s.base}/conversations/${c.id}/toggle_status`, { status: row.bot === 'resolved' ? 'resolved' : 'open' }),
            'bot',
          );
        row.resolved = row.bot === 'resolved';
      }
      // Replies where a human has the conversation: any API inbox conversation, a bot's only once handed off.
      if (!isBot || row.bot === 'handoff') {
        const count = Math.floor(random() * 3);
        for (let k = 0; k < count; k++) {
          const user = pick(users);
          const reply = ok(await user.api.post(`${s.base}/conversations/${c.id}/messages`, { content: `a${k}` }), 'reply');
          row.replies.push(user.id);
          row.firstReplyAt ??= reply.created_at as number;
        }
        if (!isBot && random() < 0.35) {
          ok(await s.admin.api.post(`${s.base}/conversations/${c.id}/toggle_status`, { status: 'resolved' }), 'resolve');
          row.resolved = true;
        }
      }
      made.push(row);
    }
    until_ = Math.floor(Date.now() / 1000) + 60;
    // The mix must exercise every figure (the seed is chosen so): replies, resolutions, both bot outcomes, both labels.
    expect(made.some((m) => m.replies.length)).toBe(true);
    expect(made.some((m) => m.bot === 'resolved') && made.some((m) => m.bot === 'handoff')).toBe(true);
    expect(made.some((m) => m.resolved && !m.bot) && made.some((m) => m.team)).toBe(true);
    expect(labels.every((l) => made.some((m) => m.labels.includes(l.id)))).toBe(true);
  }, 280_000);

  // ── the recount, from what the test made ──

  const outgoing = () => made.flatMap((m) => m.replies.map((user) => ({ m, user })));
  const rowsBy = (key: (x: { m: Made; user: number }) => number[], name: (id: number) => string): Row[] => {
    const counts = new Map<number, number>();
    for (const x of outgoing()) for (const id of key(x)) counts.set(id, (counts.get(id) ?? 0) + 1);
    return [...counts].sort(([a], [b]) => a - b).map(([id, n]) => ({ id, name: name(id), outgoing_messages_count: n }));
  };
  const inboxName = (id: number) => inboxes.find((i) => i.id === id)!.name;
  const labelTitle = (id: number) => labels.find((l) => l.id === id)!.title;

  function recount() {
    const bots = made.filter((m) => m.inbox === botInbox.id);
    const percent = (n: number) => (bots.length ? Math.trunc((n / bots.length) * 100) : 0);
    const answered = made.filter((m) => m.replies.length).length;
    return {
      summary: {
        conversations: made.length,
        received: made.reduce((t, m) => t + m.incoming, 0),
        sent: outgoing().length,
        resolutions: made.filter((m) => m.resolved).length,
      },
      bot: {
        conversation_count: bots.length,
        message_count: bots.reduce((t, m) => t + m.replies.length, 0),
        resolution_rate: percent(bots.filter((m) => m.bot === 'resolved').length),
        handoff_rate: percent(bots.filter((m) => m.bot === 'handoff').length),
      },
      outgoing: {
        agent: rowsBy(
          (x) => [x.user],
          () => '',
        ),
        team: rowsBy(
          (x) => (x.m.team ? [x.m.team] : []),
          () => team.name,
        ),
        inbox: rowsBy((x) => [x.m.inbox], inboxName),
        label: rowsBy((x) => x.m.labels, labelTitle),
      },
      distribution: answered ? { 'Channel::Api': { '0-1h': answered, '1-4h': 0, '4-8h': 0, '8-24h': 0, '24h+': 0 } } : {},
      matrix: (inboxId: number, labelId: number) => made.filter((m) => m.inbox === inboxId && m.labels.includes(labelId)).length,
      traffic: made.length,
    };
  }

  // ── what the reports answer ──

  async function reported() {
    const range = { since, until: until_ };
    const summaryCsv = await get('reports/conversations_summary', range);
    const row = summaryCsv.text.split('\n')[3]!.split(',');
    const outgoingBy = async (group_by: string) =>
      ok(await get('reports/outgoing_messages_count', { ...range, group_by }), group_by) as Row[];
    const matrix = ok(await get('reports/inbox_label_matrix', range), 'matrix');
    const traffic = await get('reports/conversation_traffic', { timezone_offset: 0 });
    const trafficCells = traffic.text
      .trim()
      .split('\n')
      .slice(3)
      .flatMap((l) => l.split(',').slice(1).map(Number));
    return {
      summary: { conversations: Number(row[0]), received: Number(row[1]), sent: Number(row[2]), resolutions: Number(row[5]) },
      bot: ok(await get('reports/bot_metrics', range), 'bot'),
      outgoing: {
        agent: (await outgoingBy('agent')).map((r) => ({ ...r, name: '' })),
        team: await outgoingBy('team'),
        inbox: await outgoingBy('inbox'),
        label: await outgoingBy('label'),
      },
      distribution: ok(await get('reports/first_response_time_distribution', range), 'distribution'),
      matrix: matrix as { inboxes: { id: number }[]; labels: { id: number }[]; matrix: number[][] },
      traffic: trafficCells.reduce((t, n) => t + n, 0),
    };
  }

  /** The reports compared with the recount (the matrix cell by cell, over every inbox and label). */
  function compare(got: Awaited<ReturnType<typeof reported>>) {
    const want = recount();
    const cells = (m: typeof got.matrix) =>
      inboxes.flatMap((i) =>
        labels.map((l) => {
          const x = m.inboxes.findIndex((r) => r.id === i.id);
          const y = m.labels.findIndex((r) => r.id === l.id);
          return x < 0 || y < 0 ? 0 : m.matrix[x]![y]!;
        }),
      );
    return {
      got: { ...got, matrix: cells(got.matrix) },
      want: { ...want, matrix: inboxes.flatMap((i) => labels.map((l) => want.matrix(i.id, l.id))) },
    };
  }

  const settled = async () => {
    let last: ReturnType<typeof compare> | undefined;
    try {
      return await until(
        async () => {
          last = compare(await reported());
          return JSON.stringify(last.got) === JSON.stringify(last.want) ? last : undefined;
        },
        { what: 'the reports to count every conversation and message', timeoutMs: 60_000 },
      );
    } catch (err) {
      // The figures that never matched, shown as a diff.
      if (last) expect(last.got).toEqual(last.want);
      throw err;
    }
  };

  it('every figure equals the recount once the pipeline has counted the mix', async () => {
    const { got, want } = await settled();
    expect(got).toEqual(want);
    // Figures the mix made non-trivial.
    expect(want.summary.sent).toBeGreaterThan(0);
    expect(want.bot.conversation_count).toBeGreaterThan(0);
    expect(want.matrix.some((n) => n > 0)).toBe(true);
    // The first response times, recounted where they run from the conversation's creation (the API inboxes; a bot
    // inbox's run from its handoff): each inbox's average over its answered conversations.
    const range = { since, until: until_ };
    for (const inbox of inboxes.filter((i) => i.id !== botInbox.id)) {
      const answered = made.filter((m) => m.inbox === inbox.id && m.firstReplyAt !== null);
      const summary = ok(await get('reports/summary', { ...range, type: 'inbox', id: inbox.id }), 'inbox summary');
      if (!answered.length) expect(summary.avg_first_response_time).toBeNull();
      else {
        const avg = answered.reduce((t, m) => t + (m.firstReplyAt! - m.created_at), 0) / answered.length;
        expect(summary.avg_first_response_time).toBeCloseTo(avg, 6);
      }
    }
    // The summary CSV's times are the account summary's averages, written as Chatwoot's TimeFormatPresenter writes them.
    const account = ok(await get('reports/summary', { ...range, type: 'account' }), 'account summary');
    expect(typeof account.avg_first_response_time).toBe('number');
    expect(typeof account.avg_resolution_time).toBe('number');
    const row = (await get('reports/conversations_summary', range)).text.split('\n')[3]!.split(',');
    expect(row.slice(3, 5)).toEqual([readableDuration(account.avg_first_response_time), readableDuration(account.avg_resolution_time)]);
  });

  it('and equals it again after the aggregates are rebuilt from the facts', async () => {
    await settled();
    const rebuilt = await rebuildAccountReports(s.accountId);
    expect(rebuilt.facts).toBeGreaterThan(0);
    const { got, want } = compare(await reported());
    expect(got).toEqual(want);
  });
});
