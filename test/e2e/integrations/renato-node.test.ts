import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, unique } from '../../support/runtime.ts';
import { until } from '../../support/until.ts';
import { newConversation, ok, world, type World } from '../conversations/fixtures.ts';

// The hand-written n8n node RenatoAscencio/n8n-nodes-chatwoot (v0.8.3, commit cee8463) on issue #32's groups: each call
// here is the request its execute code (nodes/Chatwoot/Chatwoot.node.ts) sends for an operation, with the query and
// body it builds from a user's fields (`page=1` where it asks for one page, top-level bodies, dateTime fields turned
// into Unix seconds by `new Date(…).getTime() / 1000`), and the answer is checked for the shape the node reads. The
// route walk of every operation is test/unit/n8n/renato-operations.test.ts; the group tests check the behaviour.

describe('the RenatoAscencio n8n node’s calls on SLA, companies, notes, export, transcript, snooze, audit logs, reports v2', {
  timeout: 120_000,
}, () => {
  let w: World;
  const base = () => w.s.base;
  const v2 = () => `/api/v2/accounts/${w.s.accountId}`;
  const api = () => w.s.admin.api;
  /** The node's query string: its `qs` object, arrays as repeated `key[]`. */
  const qs = (q: Record<string, string | number | boolean>) =>
    `?${new URLSearchParams(Object.entries(q).map(([k, v]) => [k, String(v)] as [string, string]))}`;
  /** A dateTime field as the node sends it: milliseconds over 1000 (whole for a date without milliseconds). */
  const unix = (iso: string) => new Date(iso).getTime() / 1000;

  beforeAll(async () => {
    w = await world();
  });

  it('slaPolicy: getAll, create, get, update, delete', async () => {
    const created = ok(
      await api().post(`${base()}/sla_policies`, {
        name: 'n8n SLA',
        description: 'from n8n',
        first_response_time_threshold: 600,
        resolution_time_threshold: 7200,
        only_during_business_hours: false,
      }),
      'create',
    ).payload;
    expect(created).toMatchObject({ name: 'n8n SLA', first_response_time_threshold: 600, next_response_time_threshold: null });
    expect(ok(await api().get(`${base()}/sla_policies`), 'getAll').payload.map((p: { id: number }) => p.id)).toContain(created.id);
    expect(ok(await api().get(`${base()}/sla_policies/${created.id}`), 'get').payload.id).toBe(created.id);
    const updated = ok(
      await api().patch(`${base()}/sla_policies/${created.id}`, { name: 'n8n SLA 2', next_response_time_threshold: 300 }),
      'update',
    );
    expect(updated.payload).toMatchObject({ name: 'n8n SLA 2', next_response_time_threshold: 300, first_response_time_threshold: 600 });
    expect((await api().delete(`${base()}/sla_policies/${created.id}`)).status).toBe(200);
  });

  it('appliedSla: getAll (one page, every option), metrics and download with since and until', async () => {
    const since = unix('2026-01-01T00:00:00');
    const until = Math.floor(Date.now() / 1000) + 60;
    const page = ok(
      await api().get(
        `${base()}/applied_slas${qs({ since, until, inbox_id: w.inbox.id, team_id: 1, sla_policy_id: 1, assigned_agent_id: w.s.agent.id, page: 1 })}`,
      ),
      'getAll',
    );
    // The node reads `payload`.
    expect(page).toEqual({ payload: [], meta: { count: 0, current_page: 1 } });
    expect(ok(await api().get(`${base()}/applied_slas/metrics${qs({ since, until })}`), 'metrics')).toEqual({
      total_applied_slas: 0,
      number_of_sla_misses: 0,
      hit_rate: '100%',
    });
    const csv = await api().get(`${base()}/applied_slas/download${qs({ since, until })}`);
    expect(csv.status).toBe(200);
    expect(csv.text.split('\n')[0]).toBe('Conversation ID,SLA Policy,Assignee,Team,Inbox,Labels,Link to the Conversation,Breached Events');
    // Only one end given: the node sends what the user filled; Chatwoot filters on a range only with both.
    expect(ok(await api().get(`${base()}/applied_slas/metrics${qs({ since })}`), 'one end').total_applied_slas).toBe(0);
  });

  it('company: create and update with top-level bodies, get, getAll and search one page, delete', async () => {
    const domain = `${unique('n8n')}.example`.toLowerCase().replace(/[^a-z0-9.-]/g, '-');
    const made = ok(await api().post(`${base()}/companies`, { name: 'N8n Co', domain, description: 'made by n8n' }), 'create').payload;
    expect(made).toMatchObject({ name: 'N8n Co', domain, description: 'made by n8n', contacts_count: 0 });
    const updated = ok(await api().patch(`${base()}/companies/${made.id}`, { name: 'N8n Company', description: 'renamed' }), 'update');
    expect(updated.payload).toMatchObject({ id: made.id, name: 'N8n Company', domain });
    expect(ok(await api().get(`${base()}/companies/${made.id}`), 'get').payload.id).toBe(made.id);
    const listed = ok(await api().get(`${base()}/companies${qs({ sort: '-created_at', page: 1 })}`), 'getAll');
    expect(listed.payload.map((c: { id: number }) => c.id)).toContain(made.id);
    expect(listed.meta).toMatchObject({ total_count: expect.any(Number), page: 1 });
    const found = ok(await api().get(`${base()}/companies/search${qs({ q: 'N8n Comp', page: 1 })}`), 'search');
    expect(found.payload.map((c: { id: number }) => c.id)).toEqual([made.id]);
    expect((await api().delete(`${base()}/companies/${made.id}`)).status).toBe(200);
  });

  it('contactNote: create and update `{content}`, getAll, delete', async () => {
    const note = ok(await api().post(`${base()}/contacts/${w.contact.id}/notes`, { content: 'from n8n' }), 'create');
    expect(note).toMatchObject({ content: 'from n8n', contact_id: w.contact.id, user: { id: w.s.admin.id } });
    const edited = ok(await api().patch(`${base()}/contacts/${w.contact.id}/notes/${note.id}`, { content: 'edited in n8n' }), 'update');
    expect(edited).toMatchObject({ id: note.id, content: 'edited in n8n' });
    const all = ok(await api().get(`${base()}/contacts/${w.contact.id}/notes`), 'getAll');
    expect(all.map((n: { id: number }) => n.id)).toContain(note.id);
    expect((await api().delete(`${base()}/contacts/${w.contact.id}/notes/${note.id}`)).status).toBe(200);
  });

  it('contact export (`tag`, `column_names` split from a comma list) and conversation transcript `{email}`', async () => {
    expect((await api().post(`${base()}/contacts/export`, {})).status).toBe(200);
    // `tag` is the node's own option (Chatwoot reads no such field: ignored); columns are its comma list split.
    expect((await api().post(`${base()}/contacts/export`, { tag: 'vip', column_names: ['name', 'email'] })).status).toBe(200);
    const c = await newConversation(w.s, { inbox_id: w.inbox.id, contact_id: w.contact.id });
    expect((await api().post(`${base()}/conversations/${c.id}/transcript`, { email: `${unique('t')}@example.com` })).status).toBe(200);
  });

  it('notification snooze: the node sends its dateTime field as text, which Chatwoot parses as Unix seconds only', async () => {
    const c = await newConversation(w.s, { inbox_id: w.inbox.id, contact_id: w.contact.id });
    // The agent's notification of an assignment (the node runs with the agent's token here).
    const agent = w.s.agent.api;
    ok(await api().post(`${base()}/conversations/${c.id}/assignments`, { assignee_id: w.s.agent.id }), 'assign');
    const n = await until(async () =>
      (ok(await agent.get(`${base()}/notifications?includes[]=read&includes[]=snoozed`), 'list').data.payload as any[]).find(
        (x) => x.primary_actor_id === c.id,
      ),
    );
    // The node's exact call: `snoozed_until` is n8n's dateTime text. Chatwoot's `DateTime.strptime(…, '%s')` refuses
    // it (an error, a 500 there); here a clear 422 on the field, and the notification is not snoozed.
    const iso = new Date(Date.now() + 3_600_000).toISOString();
    expectErrorBody(await agent.post(`${base()}/notifications/${n.id}/snooze`, { snoozed_until: iso }), 422);
    // What Chatwoot takes (and a workflow gets with an expression turning the date into seconds) snoozes it.
    const at = Math.floor(Date.now() / 1000) + 3600;
    const snoozed = ok(await agent.post(`${base()}/notifications/${n.id}/snooze`, { snoozed_until: String(at) }), 'snooze');
    expect(snoozed).toMatchObject({ id: n.id, snoozed_until: new Date(at * 1000).toISOString() });
  });

  it('auditLog getAll: one page with the node’s filters (Chatwoot pages by `page` alone)', async () => {
    const res = ok(await api().get(`${base()}/audit_logs${qs({ auditable_type: 'Inbox', user_id: w.s.admin.id, page: 1 })}`), 'getAll');
    expect(res).toMatchObject({ per_page: 25, current_page: 1, total_entries: expect.any(Number) });
    expect(Array.isArray(res.audit_logs)).toBe(true);
    // The node reads `payload`, which Chatwoot's answer does not have (the node gets no rows; so does it from Chatwoot).
    expect(res.payload).toBeUndefined();
  });

  it('report: the v2 reports with since and until as the node converts them, and its options', async () => {
    const since = Math.floor(unix('2026-01-01T00:00:00'));
    const until = Math.floor(Date.now() / 1000) + 60;
    const get = (path: string, q: Record<string, string | number | boolean> = {}) =>
      api().get(`${v2()}/${path}${qs({ since, until, ...q })}`);

    const summary = await get('reports/conversations_summary', { business_hours: false });
    expect(summary.status).toBe(200);
    expect(summary.headers.get('content-type')).toMatch(/^text\/csv/);
    const traffic = await get('reports/conversation_traffic', { timezone_offset: -3 });
    expect(traffic.status).toBe(200);
    expect(traffic.text.split('\n')[0]).toMatch(/^Timezone,/);
    expect(ok(await get('reports/bot_metrics'), 'bot_metrics')).toMatchObject({
      conversation_count: expect.any(Number),
      message_count: expect.any(Number),
    });
    expect(ok(await get('reports/first_response_time_distribution'), 'distribution')).toEqual(expect.any(Object));
    const matrix = ok(await get('reports/inbox_label_matrix', { 'inbox_ids[]': w.inbox.id }), 'matrix');
    expect(matrix).toMatchObject({ inboxes: expect.any(Array), labels: expect.any(Array), matrix: expect.any(Array) });
    for (const groupBy of ['agent', 'team', 'inbox', 'label']) {
      expect(Array.isArray(ok(await get('reports/outgoing_messages_count', { group_by: groupBy }), groupBy))).toBe(true);
    }
    // The node sends year alone for year in review.
    expect(ok(await api().get(`${v2()}/year_in_review${qs({ year: 2026 })}`), 'year')).toMatchObject({ year: 2026 });
    expect(ok(await api().get(`${v2()}/live_reports/conversation_metrics`), 'live')).toMatchObject({ open: expect.any(Number) });
    expect(ok(await api().get(`${v2()}/live_reports/grouped_conversation_metrics${qs({ group_by: 'assignee_id' })}`), 'grouped')).toEqual(
      expect.any(Array),
    );
  });
});
