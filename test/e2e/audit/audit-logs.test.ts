import { beforeAll, describe, expect, it } from 'vitest';
import { recordAudits } from '#shared/events/audit.ts';
import type { auditLogJson } from '#shared/domain/audit/service.ts';
import { expectErrorBody, runtime, seedAccount, unique, type SeededAccount } from '../../support/runtime.ts';
import { streamRecords } from '../../support/stream.ts';
import { untilState } from '../../support/until.ts';

// Chatwoot's enterprise audit trail, written by the stream's audit stage from the table's changes: who changed which
// account object (inboxes, webhooks, automation rules, teams, agents' roles, the account's settings), what changed,
// when and from where; newest first, 25 a page; administrators only.

type Entry = ReturnType<typeof auditLogJson>;
interface Page {
  audit_logs: Entry[];
  per_page: number;
  total_entries: number;
  current_page: number;
}

const ok = <T extends { status: number; body: unknown }>(res: T, what: string) => {
  expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(200);
  return res;
};

describe('audit logs', () => {
  let s: SeededAccount;

  beforeAll(async () => {
    await runtime();
    s = await seedAccount();
  }, 120_000);

  const page = async (n?: number): Promise<Page> => {
    const res = await s.admin.api.get(`${s.base}/audit_logs${n === undefined ? '' : `?page=${n}`}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as Page;
  };
  /** Every entry, newest first, once `done` holds of them. */
  const entriesUntil = async (done: (all: Entry[]) => boolean): Promise<Entry[]> => {
    const all = async () => {
      const first = await page(1);
      const out = [...first.audit_logs];
      for (let n = 2; (n - 1) * first.per_page < first.total_entries; n++) out.push(...(await page(n)).audit_logs);
      return out;
    };
    return untilState(all, done, 30_000);
  };
  const find = (all: Entry[], type: string, id: number, action: string) =>
    all.find((e) => e.auditable_type === type && e.auditable_id === id && e.action === action);

  it('logs create, update and destroy of inboxes, webhooks, automation rules and teams, with the actor and the changed fields', async () => {
    const inbox = ok(await s.admin.api.post(`${s.base}/inboxes`, { name: 'Audited', channel: { type: 'api' } }), 'inbox').body;
    ok(await s.admin.api.patch(`${s.base}/inboxes/${inbox.id}`, { name: 'Audited again' }), 'inbox update');
    const url = `https://example.com/${unique('hook')}`;
    const webhook = ok(await s.admin.api.post(`${s.base}/webhooks`, { url, subscriptions: ['message_created'] }), 'webhook').body;
    ok(
      await s.admin.api.patch(`${s.base}/webhooks/${webhook.id}`, { subscriptions: ['message_created', 'contact_created'] }),
      'webhook update',
    );
    ok(await s.admin.api.delete(`${s.base}/webhooks/${webhook.id}`), 'webhook delete');
    const rule = ok(
      await s.admin.api.post(`${s.base}/automation_rules`, {
        name: 'Tag help',
        event_name: 'message_created',
        conditions: [{ attribute_key: 'content', filter_operator: 'contains', values: ['help'], query_operator: null }],
        actions: [{ action_name: 'add_label', action_params: ['support'] }],
      }),
      'rule',
    ).body;
    ok(await s.admin.api.patch(`${s.base}/automation_rules/${rule.id}`, { active: false }), 'rule update');
    const team = ok(await s.admin.api.post(`${s.base}/teams`, { name: unique('team') }), 'team').body;
    ok(await s.admin.api.patch(`${s.base}/teams/${team.id}`, { description: 'Second line' }), 'team update');
    ok(await s.admin.api.delete(`${s.base}/teams/${team.id}`), 'team delete');
    ok(await s.admin.api.patch(`${s.base}/agents/${s.agent.id}`, { role: 'administrator' }), 'promote');
    ok(await s.admin.api.patch(`${s.base}/agents/${s.agent.id}`, { role: 'agent' }), 'demote');
    const agent = ok(
      await s.admin.api.post(`${s.base}/agents`, { name: 'Audited Agent', email: `${unique('aud')}@example.com`, role: 'agent' }),
      'agent',
    ).body;
    ok(await s.admin.api.delete(`${s.base}/agents/${agent.id}`), 'agent delete');
    const macro = ok(
      await s.admin.api.post(`${s.base}/macros`, {
        name: 'Escalate',
        visibility: 'global',
        actions: [{ action_name: 'change_priority', action_params: ['high'] }],
      }),
      'macro',
    ).body.payload;
    ok(await s.admin.api.patch(s.base, { name: 'Renamed for the audit' }), 'account update');
    ok(await s.admin.api.delete(`${s.base}/inboxes/${inbox.id}`), 'inbox delete');

    const all = await entriesUntil((es) => !!find(es, 'Inbox', inbox.id, 'destroy') && !!find(es, 'Account', s.accountId, 'update'));

    // Newest first.
    const times = all.map((e) => e.created_at);
    expect(times).toEqual([...times].sort((a, b) => b - a));

    const inboxCreate = find(all, 'Inbox', inbox.id, 'create')!;
    expect(inboxCreate).toMatchObject({
      auditable_type: 'Inbox',
      associated_id: s.accountId,
      associated_type: 'Account',
      user_id: s.admin.id,
      user_type: 'User',
      version: expect.any(Number),
    });
    expect(inboxCreate.audited_changes.name).toBe('Audited');
    expect(typeof inboxCreate.remote_address).toBe('string');
    expect(typeof inboxCreate.id).toBe('number');
    expect(find(all, 'Inbox', inbox.id, 'update')!.audited_changes.name).toEqual(['Audited', 'Audited again']);
    const inboxDestroy = find(all, 'Inbox', inbox.id, 'destroy')!;
    expect(inboxDestroy.user_id).toBe(s.admin.id);
    expect(inboxDestroy.audited_changes.name).toBe('Audited again');

    expect(find(all, 'Webhook', webhook.id, 'create')!.audited_changes.url).toBe(url);
    expect(find(all, 'Webhook', webhook.id, 'update')!.audited_changes.subscriptions).toEqual([
      ['message_created'],
      ['message_created', 'contact_created'],
    ]);
    expect(find(all, 'Webhook', webhook.id, 'destroy')!.user_id).toBe(s.admin.id);
    // A webhook's signing secret is sealed in the table and never shown.
    expect(JSON.stringify(all.filter((e) => e.auditable_type === 'Webhook'))).not.toMatch(/whsec_/);

    expect(find(all, 'AutomationRule', rule.id, 'create')!.audited_changes.name).toBe('Tag help');
    expect(find(all, 'AutomationRule', rule.id, 'update')!.audited_changes.active).toEqual([true, false]);

    expect(find(all, 'Team', team.id, 'create')!.user_id).toBe(s.admin.id);
    expect(find(all, 'Team', team.id, 'update')!.audited_changes.description).toEqual([null, 'Second line']);
    expect(find(all, 'Team', team.id, 'destroy')!.user_id).toBe(s.admin.id);

    const roles = all
      .filter((e) => e.auditable_type === 'AccountUser' && e.action === 'update' && 'role' in e.audited_changes)
      .map((e) => e.audited_changes.role);
    expect(roles).toEqual([
      ['administrator', 'agent'],
      ['agent', 'administrator'],
    ]);

    // An agent added and removed: their membership's create and destroy.
    const membership = (action: string) =>
      all.find((e) => e.auditable_type === 'AccountUser' && e.action === action && e.audited_changes.user_id === agent.id);
    expect(membership('create')).toMatchObject({ user_id: s.admin.id, audited_changes: { user_id: agent.id, role: 'agent' } });
    expect(membership('destroy')).toMatchObject({ user_id: s.admin.id });

    expect(find(all, 'Macro', macro.id, 'create')).toMatchObject({ user_id: s.admin.id, audited_changes: { name: 'Escalate' } });

    const account = find(all, 'Account', s.accountId, 'update')!;
    expect(account.audited_changes.name).toEqual([expect.any(String), 'Renamed for the audit']);
    expect(account.user_id).toBe(s.admin.id);
    // Only what changed: no keys, versions or stamps.
    for (const e of all)
      for (const k of ['pk', 'sk', 'version', 'audit_by', 'audit_delete']) expect(e.audited_changes).not.toHaveProperty(k);
  }, 120_000);

  it('pages 25 at a time, newest first, and a change the stream hands over again adds no second entry', async () => {
    const names: string[] = [];
    for (let i = 0; i < 27; i++) {
      const name = unique('t');
      names.push(name);
      ok(await s.admin.api.post(`${s.base}/teams`, { name }), `team ${i}`);
    }
    const all = await entriesUntil((es) => names.every((n) => es.some((e) => e.action === 'create' && e.audited_changes.name === n)));
    const first = await page(1);
    const second = await page(2);
    expect(first).toMatchObject({ per_page: 25, current_page: 1, total_entries: all.length });
    expect(first.audit_logs).toHaveLength(25);
    expect(second.current_page).toBe(2);
    expect(second.audit_logs.map((e) => e.id)).toEqual(all.slice(25, 50).map((e) => e.id));
    expect(new Set([...first.audit_logs, ...second.audit_logs].map((e) => e.id)).size).toBe(
      first.audit_logs.length + second.audit_logs.length,
    );
    // Anything but a positive integer is the first page, as Kaminari reads it.
    expect((await page(0)).current_page).toBe(1);
    expect((await s.admin.api.get(`${s.base}/audit_logs?page=abc`)).body.current_page).toBe(1);
    // Past the end: an empty page, the same total.
    const beyond = await page(99);
    expect(beyond).toMatchObject({ audit_logs: [], total_entries: all.length, current_page: 99 });

    // The stream delivers a batch again (a retried invocation): the same entries, none added.
    const records = await streamRecords((c) => c.type === 'team' && c.newImage?.name === names[0]);
    expect(records.length).toBeGreaterThan(0);
    expect(await recordAudits(records)).toBeGreaterThan(0);
    expect(await recordAudits(records)).toBeGreaterThan(0);
    expect((await page(1)).total_entries).toBe(all.length);
  }, 120_000);

  it('answers administrators only: an agent is refused', async () => {
    expectErrorBody(await s.agent.api.get(`${s.base}/audit_logs`), 403);
    const other = await seedAccount();
    // Another account's administrator sees nothing of this one (the account is not theirs: 404, as every route answers).
    expectErrorBody(await other.admin.api.get(`${s.base}/audit_logs`), 404);
  });
});
