import { beforeAll, describe, expect, it } from 'vitest';
import { listActiveAutomationRules } from '#shared/db/repositories/automation-rules.ts';
import { client, expectErrorBody, runtime, seedAccount, type SeededAccount, fieldsOf } from '../../support/runtime.ts';

const rule = {
  name: 'Tag help requests',
  description: 'Adds the support label',
  event_name: 'message_created',
  conditions: [
    { attribute_key: 'content', filter_operator: 'contains', values: ['help'], query_operator: 'and' },
    { attribute_key: 'message_type', filter_operator: 'equal_to', values: ['incoming'], query_operator: null },
  ],
  actions: [{ action_name: 'add_label', action_params: ['support'] }],
};

/** Every field of docs/contract.md#automation-rule, with its type. */
function expectRule(body: any, expected: Record<string, unknown>) {
  expect(Object.keys(body).sort()).toEqual(
    ['account_id', 'actions', 'active', 'conditions', 'created_on', 'description', 'event_name', 'id', 'name'].sort(),
  );
  expect(body).toMatchObject(expected);
  expect(Number.isInteger(body.id)).toBe(true);
  expect(Number.isInteger(body.account_id)).toBe(true);
  expect(Number.isInteger(body.created_on)).toBe(true);
  expect(Math.abs(body.created_on - Date.now() / 1000)).toBeLessThan(120);
  expect(typeof body.active).toBe('boolean');
  expect(Array.isArray(body.conditions)).toBe(true);
  expect(Array.isArray(body.actions)).toBe(true);
  for (const c of body.conditions) {
    expect(Array.isArray(c.values) || typeof c.values === 'object').toBe(true);
    expect(typeof c.attribute_key).toBe('string');
    expect(typeof c.filter_operator).toBe('string');
  }
  for (const a of body.actions) {
    expect(typeof a.action_name).toBe('string');
    expect(Array.isArray(a.action_params)).toBe(true);
  }
}

describe('automation rules (contract endpoint 7)', () => {
  let s: SeededAccount;
  let other: SeededAccount;
  beforeAll(async () => {
    s = await seedAccount();
    other = await seedAccount();
  });

  it('creates (bare), shows (endpoint 7, payload), lists, updates, clones and deletes rules', async () => {
    const created = await s.admin.api.post(`${s.base}/automation_rules`, rule);
    expect(created.status).toBe(200);
    expectRule(created.body, { ...rule, account_id: s.accountId, active: true });

    const shown = await s.admin.api.get(`${s.base}/automation_rules/${created.body.id}`);
    expect(shown.status).toBe(200);
    expect(Object.keys(shown.body)).toEqual(['payload']);
    expectRule(shown.body.payload, created.body);
    expect(shown.body.payload).toEqual(created.body);

    const list = await s.admin.api.get(`${s.base}/automation_rules`);
    expect(list.body).toEqual({ payload: [created.body] });

    const updated = await s.admin.api.patch(`${s.base}/automation_rules/${created.body.id}`, { name: 'Renamed', active: false });
    expect(updated.status).toBe(200);
    expectRule(updated.body.payload, { ...created.body, name: 'Renamed', active: false });

    const put = await s.admin.api.put(`${s.base}/automation_rules/${created.body.id}`, {
      event_name: 'conversation_created',
      conditions: [{ attribute_key: 'status', filter_operator: 'equal_to', values: ['open'] }],
      actions: [{ action_name: 'resolve_conversation' }, { action_name: 'assign_team', action_params: [] }],
      active: 'true',
    });
    expectRule(put.body.payload, {
      id: created.body.id,
      name: 'Renamed',
      event_name: 'conversation_created',
      conditions: [{ attribute_key: 'status', filter_operator: 'equal_to', values: ['open'] }],
      actions: [
        { action_name: 'resolve_conversation', action_params: [] },
        { action_name: 'assign_team', action_params: [] },
      ],
      active: true,
      created_on: created.body.created_on,
    });

    const cloned = await s.admin.api.post(`${s.base}/automation_rules/${created.body.id}/clone`);
    expect(cloned.status).toBe(200);
    const copy = cloned.body.payload;
    // A new rule: its own id and creation time.
    expectRule(copy, { ...put.body.payload, id: expect.any(Number), created_on: expect.any(Number) });
    expect(copy.created_on).toBeGreaterThanOrEqual(put.body.payload.created_on);
    expect(copy.id).not.toBe(created.body.id);
    expect(copy.name).toBe('Renamed');
    expect((await s.admin.api.get(`${s.base}/automation_rules`)).body.payload.map((r: { id: number }) => r.id)).toEqual([
      created.body.id,
      copy.id,
    ]);

    const gone = await s.admin.api.delete(`${s.base}/automation_rules/${created.body.id}`);
    expect(gone.status).toBe(200);
    expect(gone.text).toBe('');
    expectErrorBody(await s.admin.api.get(`${s.base}/automation_rules/${created.body.id}`), 404);
    expect((await s.admin.api.get(`${s.base}/automation_rules/${copy.id}`)).body.payload).toEqual(copy);
  });

  it('keeps the active rules of each event in an index for evaluation (AP96)', async () => {
    const a = (await s.admin.api.post(`${s.base}/automation_rules`, { ...rule, event_name: 'conversation_resolved' })).body;
    const b = (await s.admin.api.post(`${s.base}/automation_rules`, { ...rule, event_name: 'conversation_resolved', active: false })).body;
    const ids = async () => (await listActiveAutomationRules(s.accountId, 'conversation_resolved')).map((r) => r.id);
    expect(await ids()).toEqual([a.id]);
    await s.admin.api.patch(`${s.base}/automation_rules/${b.id}`, { active: true });
    await s.admin.api.patch(`${s.base}/automation_rules/${a.id}`, { active: false });
    expect(await ids()).toEqual([b.id]);
    await s.admin.api.patch(`${s.base}/automation_rules/${b.id}`, { event_name: 'conversation_opened' });
    expect(await ids()).toEqual([]);
    expect((await listActiveAutomationRules(s.accountId, 'conversation_opened')).map((r) => r.id)).toEqual([b.id]);
  });

  it('accepts every documented condition form', async () => {
    const res = await s.admin.api.post(`${s.base}/automation_rules`, {
      name: 'Everything',
      event_name: 'conversation_updated',
      conditions: [
        { attribute_key: 'assignee_id', filter_operator: 'is_not_present', values: [], query_operator: 'AND' },
        { attribute_key: 'inbox_id', filter_operator: 'equal_to', values: [1, '2'], query_operator: 'OR' },
        {
          attribute_key: 'status',
          filter_operator: 'attribute_changed',
          values: { from: ['open'], to: ['resolved'] },
          query_operator: 'or',
        },
        {
          attribute_key: 'plan',
          custom_attribute_type: 'contact_attribute',
          filter_operator: 'is_greater_than',
          values: [3],
          query_operator: 'and',
        },
        { attribute_key: 'phone_number', filter_operator: 'starts_with', values: ['+49'], query_operator: 'and' },
        { attribute_key: 'message_type', filter_operator: 'not_equal_to', values: [2] },
      ],
      actions: [
        { action_name: 'send_message', action_params: ['Hello'] },
        { action_name: 'add_private_note', action_params: ['note'] },
        { action_name: 'assign_agent', action_params: [s.agent.id] },
        { action_name: 'assign_team', action_params: ['nil'] },
        { action_name: 'remove_label', action_params: ['a', 'b'] },
        { action_name: 'change_status', action_params: ['snoozed'] },
        { action_name: 'change_priority', action_params: ['nil'] },
        { action_name: 'send_webhook_event', action_params: ['https://hooks.example.com/automation'] },
        { action_name: 'mute_conversation', action_params: [] },
        { action_name: 'snooze_conversation', action_params: [] },
        { action_name: 'open_conversation', action_params: [] },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.conditions[2].values).toEqual({ from: ['open'], to: ['resolved'] });
    expect(res.body.conditions[3]).toEqual({
      attribute_key: 'plan',
      custom_attribute_type: 'contact_attribute',
      filter_operator: 'is_greater_than',
      values: [3],
      query_operator: 'and',
    });
    expect(res.body.actions).toHaveLength(11);
    expect(res.body.description).toBeNull();
  });

  it('refuses unknown events, keys, operators, chains and actions with 422 naming the path', async () => {
    const refuse = async (body: Record<string, unknown>) =>
      fieldsOf(expectErrorBody(await s.admin.api.post(`${s.base}/automation_rules`, { ...rule, ...body }), 422));
    const cond = (c: Record<string, unknown>) => ({ attribute_key: 'status', filter_operator: 'equal_to', values: ['open'], ...c });

    expect(await refuse({ event_name: 'conversation_deleted' })).toEqual({ event_name: 'invalid' });
    expect(await refuse({ name: '', event_name: undefined, conditions: [], actions: 'x' })).toEqual({
      name: 'required',
      event_name: 'required',
      conditions: 'required',
      actions: 'invalid',
    });
    expect(await refuse({ conditions: [cond({ query_operator: 'and' }), cond({ filter_operator: 'contains' })] })).toEqual({
      'conditions[1].filter_operator': 'invalid',
    });
    expect(await refuse({ conditions: [cond({ attribute_key: 'shoe_size' })] })).toEqual({ 'conditions[0].attribute_key': 'invalid' });
    expect(await refuse({ conditions: [cond({}), cond({})] })).toEqual({ 'conditions[0].query_operator': 'required' });
    expect(await refuse({ conditions: [cond({ query_operator: 'xor' }), cond({})] })).toEqual({
      'conditions[0].query_operator': 'invalid',
    });
    expect(await refuse({ conditions: [cond({ values: ['opne'] })] })).toEqual({ 'conditions[0].values': 'invalid' });
    expect(await refuse({ conditions: [cond({ values: [] })] })).toEqual({ 'conditions[0].values': 'required' });
    expect(await refuse({ conditions: [cond({ attribute_key: 'inbox_id', values: ['first'] })] })).toEqual({
      'conditions[0].values': 'invalid',
    });
    expect(
      await refuse({ conditions: [cond({ filter_operator: 'attribute_changed', values: { from: ['open'], to: ['resolved'] } })] }),
    ).toEqual({
      'conditions[0].filter_operator': 'invalid',
    });
    expect(
      await refuse({ event_name: 'conversation_updated', conditions: [cond({ filter_operator: 'attribute_changed', values: ['open'] })] }),
    ).toEqual({
      'conditions[0].values': 'invalid',
    });
    expect(await refuse({ conditions: [cond({ attribute_key: 'plan', custom_attribute_type: 'deal_attribute' })] })).toEqual({
      'conditions[0].custom_attribute_type': 'invalid',
    });
    expect(await refuse({ conditions: ['status'] })).toEqual({ 'conditions[0]': 'invalid' });
    expect(await refuse({ conditions: [cond({ filter_operator: undefined, attribute_key: undefined })] })).toEqual({
      'conditions[0].attribute_key': 'required',
      'conditions[0].filter_operator': 'required',
    });

    expect(await refuse({ actions: [{ action_name: 'send_attachment', action_params: [1] }] })).toEqual({
      'actions[0].action_name': 'invalid',
    });
    expect(await refuse({ actions: [{ action_params: ['x'] }] })).toEqual({ 'actions[0].action_name': 'required' });
    for (const [name, params] of [
      ['change_status', ['closed']],
      ['change_priority', ['critical']],
      ['send_webhook_event', ['ftp://example.com/x']],
      ['assign_agent', ['someone']],
      ['assign_team', [1, 2]],
      ['send_message', ['']],
      ['add_label', []],
      ['add_label', 'support'],
    ] as const) {
      expect(
        await refuse({
          actions: [
            { action_name: 'add_label', action_params: ['ok'] },
            { action_name: name, action_params: params },
          ],
        }),
        name,
      ).toEqual({
        'actions[1].action_params': 'invalid',
      });
    }
    // Several problems at once, each with its own path.
    expect(
      await refuse({
        conditions: [cond({ attribute_key: 'x' }), cond({ filter_operator: 'starts_with' })],
        actions: [{ action_name: 'explode' }],
      }),
    ).toEqual({
      'conditions[0].attribute_key': 'invalid',
      'conditions[0].query_operator': 'required',
      'conditions[1].filter_operator': 'invalid',
      'actions[0].action_name': 'invalid',
    });
  });

  it("validates updates against the rule's event, also when only the event changes", async () => {
    const r = (
      await s.admin.api.post(`${s.base}/automation_rules`, {
        ...rule,
        event_name: 'conversation_updated',
        conditions: [{ attribute_key: 'team_id', filter_operator: 'attribute_changed', values: { from: [1], to: [2] } }],
      })
    ).body;
    const res = expectErrorBody(await s.admin.api.patch(`${s.base}/automation_rules/${r.id}`, { event_name: 'message_created' }), 422);
    expect(fieldsOf(res)).toEqual({ 'conditions[0].filter_operator': 'invalid' });
    expect(
      fieldsOf(
        expectErrorBody(
          await s.admin.api.patch(`${s.base}/automation_rules/${r.id}`, { actions: [{ action_name: 'nope' }], active: 'maybe' }),
          422,
        ),
      ),
    ).toEqual({
      active: 'invalid',
    });
    expect(
      fieldsOf(expectErrorBody(await s.admin.api.patch(`${s.base}/automation_rules/${r.id}`, { actions: [{ action_name: 'nope' }] }), 422)),
    ).toEqual({
      'actions[0].action_name': 'invalid',
    });
    // Nothing was written.
    expect((await s.admin.api.get(`${s.base}/automation_rules/${r.id}`)).body.payload).toEqual(r);
  });

  it("is for administrators only, and hides other accounts' rules", async () => {
    const r = (await s.admin.api.post(`${s.base}/automation_rules`, rule)).body;
    for (const res of [
      await s.agent.api.get(`${s.base}/automation_rules`),
      await s.agent.api.get(`${s.base}/automation_rules/${r.id}`),
      await s.agent.api.post(`${s.base}/automation_rules`, rule),
      await s.agent.api.patch(`${s.base}/automation_rules/${r.id}`, { name: 'x' }),
      await s.agent.api.delete(`${s.base}/automation_rules/${r.id}`),
      await s.agent.api.post(`${s.base}/automation_rules/${r.id}/clone`),
    ]) {
      expect(expectErrorBody(res, 403).errors[0].code).toBe('forbidden');
    }
    for (const res of [
      await other.admin.api.get(`${other.base}/automation_rules/${r.id}`),
      await other.admin.api.patch(`${other.base}/automation_rules/${r.id}`, { name: 'x' }),
      await other.admin.api.delete(`${other.base}/automation_rules/${r.id}`),
      await other.admin.api.post(`${other.base}/automation_rules/${r.id}/clone`),
      await other.admin.api.get(`${s.base}/automation_rules/${r.id}`),
      await other.admin.api.get(`${s.base}/automation_rules`),
      await s.admin.api.get(`${s.base}/automation_rules/999999999`),
      await s.admin.api.post(`${s.base}/automation_rules/999999999/clone`),
    ]) {
      expect(expectErrorBody(res, 404).errors[0].code).toBe('not_found');
    }
    expect((await other.admin.api.get(`${other.base}/automation_rules`)).body).toEqual({ payload: [] });
    expectErrorBody(await client((await runtime()).baseUrl).get(`${s.base}/automation_rules/${r.id}`), 401);
  });
});
