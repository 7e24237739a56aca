import { describe, expect, it } from 'vitest';
import { checkRule } from '#shared/domain/automation/catalog.ts';

// A rule's conditions and actions as the validator reads them (shared/domain/automation/catalog.ts): each
// problem names its path and a code, and what passes is stored with its known fields only.

const rule = (
  event: Parameters<typeof checkRule>[0],
  conditions: unknown[],
  actions: unknown[] = [{ action_name: 'resolve_conversation' }],
) => checkRule(event, conditions, actions);
const problemsOf = (conditions: unknown[], actions?: unknown[], event: Parameters<typeof checkRule>[0] = 'conversation_created') =>
  rule(event, conditions, actions).problems;

describe('conditions', () => {
  it('stores a valid rule with only the fields it knows: query_operator kept as given, custom_attribute_type when set', () => {
    const out = rule('message_created', [
      { attribute_key: 'message_type', filter_operator: 'equal_to', values: ['incoming'], query_operator: 'AND', note: 'dropped' },
      {
        attribute_key: 'plan',
        filter_operator: 'contains',
        values: ['gold'],
        custom_attribute_type: 'contact_attribute',
        query_operator: 'or',
      },
      { attribute_key: 'labels', filter_operator: 'is_present', query_operator: null },
    ]);
    expect(out.problems).toEqual([]);
    expect(out.conditions).toEqual([
      { attribute_key: 'message_type', filter_operator: 'equal_to', values: ['incoming'], query_operator: 'AND' },
      {
        attribute_key: 'plan',
        filter_operator: 'contains',
        values: ['gold'],
        query_operator: 'or',
        custom_attribute_type: 'contact_attribute',
      },
      { attribute_key: 'labels', filter_operator: 'is_present', values: [], query_operator: null },
    ]);
    // No query_operator on the last condition: none stored.
    expect(
      rule('conversation_created', [{ attribute_key: 'status', filter_operator: 'equal_to', values: ['open'] }]).conditions[0],
    ).not.toHaveProperty('query_operator');
  });

  it('refuses a key outside the catalog, naming the keys; a custom attribute must say whose it is', () => {
    const [p] = problemsOf([{ attribute_key: 'shoe_size', filter_operator: 'equal_to', values: ['42'] }]);
    expect(p).toMatchObject({ field: 'conditions[0].attribute_key', code: 'invalid' });
    expect(p.message).toMatch(
      /^is not supported \(use one of status, assignee_id, inbox_id, .*, content, or a custom attribute with custom_attribute_type\)$/,
    );
    expect(
      problemsOf([{ attribute_key: 'shoe_size', filter_operator: 'equal_to', values: ['42'], custom_attribute_type: 'user_attribute' }]),
    ).toEqual([
      {
        field: 'conditions[0].custom_attribute_type',
        message: 'must be one of conversation_attribute, contact_attribute',
        code: 'invalid',
      },
    ]);
    expect(problemsOf([{ attribute_key: '  ', filter_operator: 'equal_to', values: ['x'] }])).toEqual([
      { field: 'conditions[0].attribute_key', message: 'is required', code: 'required' },
    ]);
  });

  it('refuses an operator the key does not take, listing those it does', () => {
    expect(problemsOf([{ attribute_key: 'status', filter_operator: 'contains', values: ['open'] }])).toEqual([
      {
        field: 'conditions[0].filter_operator',
        message: 'is not valid for status (use one of equal_to, not_equal_to, attribute_changed)',
        code: 'invalid',
      },
    ]);
    expect(problemsOf([{ attribute_key: 'phone_number', filter_operator: 'starts_with', values: ['+55'] }])).toEqual([]);
    expect(problemsOf([{ attribute_key: 'email', filter_operator: 'starts_with', values: ['ana'] }])[0]?.field).toBe(
      'conditions[0].filter_operator',
    );
    // Custom attributes take comparisons and dates too.
    expect(
      problemsOf([{ attribute_key: 'due', filter_operator: 'days_before', values: [3], custom_attribute_type: 'conversation_attribute' }]),
    ).toEqual([]);
    expect(
      problemsOf([
        { attribute_key: 'due', filter_operator: 'starts_with', values: ['x'], custom_attribute_type: 'conversation_attribute' },
      ])[0]?.field,
    ).toBe('conditions[0].filter_operator');
    expect(problemsOf([{ attribute_key: 'status', values: ['open'] }])).toEqual([
      { field: 'conditions[0].filter_operator', message: 'is required', code: 'required' },
    ]);
  });

  it('attribute_changed: only for conversation_updated (or no event given), with {from, to} lists of scalars', () => {
    const change = { attribute_key: 'status', filter_operator: 'attribute_changed', values: { from: ['open'], to: ['resolved'] } };
    expect(rule('conversation_updated', [change]).conditions).toEqual([change]);
    expect(rule(undefined, [change]).problems).toEqual([]);
    expect(problemsOf([change], undefined, 'message_created')).toEqual([
      { field: 'conditions[0].filter_operator', message: 'attribute_changed only applies to conversation_updated', code: 'invalid' },
    ]);
    expect(rule('conversation_updated', [{ ...change, values: ['open'] }]).problems).toEqual([
      { field: 'conditions[0].values', message: 'must be an object with "from" and "to" arrays for attribute_changed', code: 'invalid' },
    ]);
    expect(rule('conversation_updated', [{ ...change, values: { from: [{ x: 1 }], to: [] } }]).problems[0]?.message).toBe(
      'may only hold strings, numbers and booleans',
    );
    // Any key of the catalog takes it, whatever operators it lists, and so does a custom attribute; other keys do not.
    expect(rule('conversation_updated', [{ ...change, attribute_key: 'labels', values: { from: [], to: ['vip'] } }]).problems).toEqual([]);
    expect(
      rule('conversation_updated', [{ ...change, attribute_key: 'plan', custom_attribute_type: 'conversation_attribute' }]).problems,
    ).toEqual([]);
    expect(rule('conversation_updated', [{ ...change, attribute_key: 'snoozed_until' }]).problems[0]?.field).toBe(
      'conditions[0].attribute_key',
    );
  });

  it('requires a query operator (and/or, any case) on every condition but the last', () => {
    const c = { attribute_key: 'status', filter_operator: 'equal_to', values: ['open'] };
    expect(problemsOf([c, c])).toEqual([
      { field: 'conditions[0].query_operator', message: 'is required on every condition but the last (and, or)', code: 'required' },
    ]);
    expect(problemsOf([{ ...c, query_operator: 'xor' }, c])).toEqual([
      { field: 'conditions[0].query_operator', message: 'must be and or or', code: 'invalid' },
    ]);
    expect(
      problemsOf([
        { ...c, query_operator: 'Or' },
        { ...c, query_operator: 'AND' },
      ]),
    ).toEqual([]);
  });

  it('values: required except for presence operators, an array of scalars, not empty', () => {
    const at = (values: unknown, attribute_key = 'status', filter_operator = 'equal_to') =>
      problemsOf([{ attribute_key, filter_operator, ...(values === undefined ? {} : { values }) }]);
    expect(at(undefined)).toEqual([{ field: 'conditions[0].values', message: 'is required', code: 'required' }]);
    expect(at(undefined, 'labels', 'is_present')).toEqual([]);
    expect(at('open')).toEqual([{ field: 'conditions[0].values', message: 'must be an array', code: 'invalid' }]);
    expect(at([['open']])).toEqual([
      { field: 'conditions[0].values', message: 'may only hold strings, numbers and booleans', code: 'invalid' },
    ]);
    expect(at([])).toEqual([{ field: 'conditions[0].values', message: 'must not be empty', code: 'required' }]);
    expect(at([], 'labels', 'is_not_present')).toEqual([]);
  });

  it('values: ids for id keys, listed values for enumerations', () => {
    const at = (attribute_key: string, values: unknown[]) => problemsOf([{ attribute_key, filter_operator: 'equal_to', values }]);
    expect(at('assignee_id', [5, '12'])).toEqual([]);
    for (const bad of [[0], ['abc'], [1.5], [-3], ['1234567890123456']]) {
      expect(at('assignee_id', bad), JSON.stringify(bad)).toEqual([
        { field: 'conditions[0].values', message: 'must hold ids', code: 'invalid' },
      ]);
    }
    expect(at('status', ['all', 'snoozed'])).toEqual([]);
    expect(at('status', ['closed'])).toEqual([
      { field: 'conditions[0].values', message: 'may only hold open, resolved, pending, snoozed, all', code: 'invalid' },
    ]);
    expect(at('priority', ['urgent'])).toEqual([]);
    expect(at('priority', ['URGENT'])[0]?.message).toBe('may only hold low, medium, high, urgent');
    expect(at('message_type', ['incoming', 1, 3])).toEqual([]);
    expect(at('message_type', [4])[0]?.message).toBe('may only hold incoming, outgoing, activity, template, 0, 1, 2, 3');
  });

  it('reports every condition’s problems with their index, and a condition’s values only once its key and operator pass', () => {
    const out = rule('conversation_created', [
      'not an object',
      { attribute_key: 'shoe_size', filter_operator: 'equal_to', query_operator: 'and' },
      { attribute_key: 'status', filter_operator: 'equal_to', values: ['nope'] },
    ]);
    expect(out.problems).toEqual([
      { field: 'conditions[0]', message: 'must be an object', code: 'invalid' },
      { field: 'conditions[1].attribute_key', message: expect.stringMatching(/^is not supported/), code: 'invalid' },
      { field: 'conditions[2].values', message: 'may only hold open, resolved, pending, snoozed, all', code: 'invalid' },
    ]);
    expect(out.conditions).toEqual([undefined, undefined, undefined]);
  });
});

describe('actions', () => {
  const problem = (action: unknown) => problemsOf([{ attribute_key: 'status', filter_operator: 'equal_to', values: ['open'] }], [action]);
  const ok = (action_name: string, action_params?: unknown[]) =>
    expect(problem({ action_name, action_params }), `${action_name} ${JSON.stringify(action_params)}`).toEqual([]);
  const refused = (action_name: string, action_params: unknown, message: string) =>
    expect(problem({ action_name, action_params }), `${action_name} ${JSON.stringify(action_params)}`).toEqual([
      { field: 'actions[0].action_params', message, code: 'invalid' },
    ]);

  it('stores name and params only; params default to none', () => {
    const out = rule(
      'conversation_created',
      [],
      [{ action_name: 'add_label', action_params: ['vip', 'billing'], extra: 1 }, { action_name: 'mute_conversation' }],
    );
    expect(out.problems).toEqual([]);
    expect(out.actions).toEqual([
      { action_name: 'add_label', action_params: ['vip', 'billing'] },
      { action_name: 'mute_conversation', action_params: [] },
    ]);
  });

  it('refuses an unknown, missing or non-object action', () => {
    expect(problem({ action_name: 'delete_everything' })).toEqual([
      {
        field: 'actions[0].action_name',
        message: expect.stringMatching(/^is not supported \(use one of add_label, remove_label, assign_agent, .*send_webhook_event\)$/),
        code: 'invalid',
      },
    ]);
    expect(problem({ action_params: [] })).toEqual([{ field: 'actions[0].action_name', message: 'is required', code: 'required' }]);
    expect(problem(null)).toEqual([{ field: 'actions[0]', message: 'must be an object', code: 'invalid' }]);
    expect(problem({ action_name: 'add_label', action_params: 'vip' })).toEqual([
      { field: 'actions[0].action_params', message: 'must be an array', code: 'invalid' },
    ]);
  });

  it('text and labels', () => {
    ok('send_message', ['Thanks!']);
    ok('add_private_note', ['Check the order']);
    refused('send_message', ['  '], 'must hold one non-empty text');
    refused('send_message', ['a', 'b'], 'must hold one non-empty text');
    ok('remove_label', ['vip']);
    refused('add_label', [], 'must hold one or more label names');
    refused('add_label', ['vip', 3], 'must hold one or more label names');
  });

  it('agent and team: an id, or "nil" to unassign (a team also [], [0] and ["0"])', () => {
    ok('assign_agent', [5]);
    ok('assign_agent', ['5']);
    ok('assign_agent', ['nil']);
    refused('assign_agent', [], 'must hold one user id, or "nil" to unassign');
    refused('assign_agent', [0], 'must hold one user id, or "nil" to unassign');
    for (const params of [[4], ['4'], ['nil'], [0], ['0'], []]) ok('assign_team', params);
    refused('assign_team', ['sales'], 'must hold one team id, or "nil" to unassign');
  });

  it('status and priority from their lists ("nil" clears the priority)', () => {
    ok('change_status', ['snoozed']);
    refused('change_status', ['closed'], 'must hold one of open, resolved, pending, snoozed');
    refused('change_status', ['open', 'resolved'], 'must hold one of open, resolved, pending, snoozed');
    ok('change_priority', ['nil']);
    refused('change_priority', ['critical'], 'must hold one of low, medium, high, urgent, nil');
  });

  it('send_webhook_event: one http(s) URL', () => {
    ok('send_webhook_event', ['https://hooks.example.com/rule']);
    ok('send_webhook_event', [' http://hooks.example.com/rule ']);
    for (const bad of [
      ['ftp://hooks.example.com'],
      ['not a url'],
      ['https://a.example', 'https://b.example'],
      [42],
      ['file:///etc/passwd'],
    ]) {
      refused('send_webhook_event', bad, 'must hold one http or https URL');
    }
  });

  it('actions without params ignore what they are given', () => {
    ok('resolve_conversation', ['anything']);
    ok('snooze_conversation');
    ok('open_conversation', []);
  });
});
