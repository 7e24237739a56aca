import { afterEach, describe, expect, it, vi } from 'vitest';
import { conditionsHold, holds, type Facts } from '#shared/domain/automation/conditions.ts';
import type { Condition } from '#shared/model/automation.ts';
import { contact, conversation, message, T0 } from '../support/records.ts';

// When an automation rule's conditions hold (shared/domain/automation/conditions.ts): where each key's value
// is read, what each operator means there, `attribute_changed`, and the chaining of conditions (AND binds
// tighter than OR, left to right, no grouping).

const facts = (over: Partial<Facts> = {}): Facts => ({
  conversation: conversation(),
  contact: contact(),
  messages: [message()],
  changes: {},
  ...over,
});

const cond = (
  attribute_key: string,
  filter_operator: string,
  values: Condition['values'] = [],
  extra: Partial<Condition> = {},
): Condition => ({ attribute_key, filter_operator, values, ...extra }) as Condition;

describe('where a condition reads its value', () => {
  it('conversation fields: status (any of the values, ignoring case, `all` for every status), ids compared as text', () => {
    const f = facts({ conversation: conversation({ status: 'pending', assignee_id: 5, team_id: null }) });
    expect(holds(cond('status', 'equal_to', ['open', 'PENDING']), f)).toBe(true);
    expect(holds(cond('status', 'equal_to', ['open', 'resolved']), f)).toBe(false);
    expect(holds(cond('status', 'equal_to', ['all']), f)).toBe(true);
    expect(holds(cond('status', 'not_equal_to', ['open', 'snoozed']), f)).toBe(true);
    expect(holds(cond('status', 'not_equal_to', ['pending']), f)).toBe(false);
    expect(holds(cond('assignee_id', 'equal_to', ['5']), f)).toBe(true);
    expect(holds(cond('assignee_id', 'equal_to', [6]), f)).toBe(false);
    expect(holds(cond('team_id', 'is_not_present'), f)).toBe(true);
    expect(holds(cond('team_id', 'is_present'), f)).toBe(false);
  });

  it("the conversation's additional attributes: browser language, referer", () => {
    const f = facts();
    expect(holds(cond('browser_language', 'equal_to', ['PT-br']), f)).toBe(true);
    expect(holds(cond('referer', 'contains', ['SHOP.example']), f)).toBe(true);
    expect(holds(cond('referer', 'does_not_contain', ['cart']), f)).toBe(false);
    expect(holds(cond('referer', 'does_not_contain', ['checkout']), f)).toBe(true);
    expect(holds(cond('mail_subject', 'is_not_present'), f)).toBe(true);
  });

  it('contact fields, and country/city/company from the contact’s additional attributes (not its own country_code)', () => {
    const f = facts({
      contact: contact({ country_code: 'US', additional_attributes: { country_code: 'BR', city: 'Recife', company: 'Lima & Co' } }),
    });
    expect(holds(cond('email', 'contains', ['EXAMPLE.com']), f)).toBe(true);
    expect(holds(cond('country_code', 'equal_to', ['br']), f)).toBe(true);
    expect(holds(cond('country_code', 'equal_to', ['US']), f)).toBe(false);
    expect(holds(cond('city', 'contains', ['reci']), f)).toBe(true);
    expect(holds(cond('company', 'equal_to', ['lima & co']), f)).toBe(true);
  });

  it('a conversation without its contact: contact keys are absent', () => {
    const f = facts({ contact: undefined });
    expect(holds(cond('email', 'is_not_present'), f)).toBe(true);
    expect(holds(cond('email', 'contains', ['example']), f)).toBe(false);
    expect(holds(cond('city', 'equal_to', ['Recife']), f)).toBe(false);
    expect(holds(cond('plan', 'equal_to', ['gold'], { custom_attribute_type: 'contact_attribute' }), f)).toBe(false);
  });

  it('custom attributes: the contact’s or the conversation’s, as custom_attribute_type says (the conversation’s without one)', () => {
    const f = facts({
      contact: contact({ custom_attributes: { plan: 'Gold' } }),
      conversation: conversation({ custom_attributes: { plan: 'trial', order_total: 120.5 } }),
    });
    expect(holds(cond('plan', 'equal_to', ['gold'], { custom_attribute_type: 'contact_attribute' }), f)).toBe(true);
    expect(holds(cond('plan', 'equal_to', ['gold'], { custom_attribute_type: 'conversation_attribute' }), f)).toBe(false);
    expect(holds(cond('plan', 'equal_to', ['TRIAL']), f)).toBe(true);
    expect(holds(cond('order_total', 'is_greater_than', ['100'], { custom_attribute_type: 'conversation_attribute' }), f)).toBe(true);
    expect(holds(cond('order_total', 'is_less_than', [100], { custom_attribute_type: 'conversation_attribute' }), f)).toBe(false);
    expect(holds(cond('missing', 'is_greater_than', [-1], { custom_attribute_type: 'conversation_attribute' }), f)).toBe(false);
    expect(holds(cond('missing', 'is_less_than', [1e9], { custom_attribute_type: 'conversation_attribute' }), f)).toBe(false);
  });

  it('message keys: message_type by name or REST code, content from the processed content', () => {
    const f = facts({ messages: [message({ message_type: 0, content: 'Hello **there**', processed_message_content: 'Hello there' })] });
    expect(holds(cond('message_type', 'equal_to', ['incoming']), f)).toBe(true);
    expect(holds(cond('message_type', 'equal_to', [0]), f)).toBe(true);
    expect(holds(cond('message_type', 'equal_to', ['INCOMING']), f)).toBe(true);
    expect(holds(cond('message_type', 'equal_to', ['outgoing', 1]), f)).toBe(false);
    expect(holds(cond('message_type', 'not_equal_to', ['incoming']), f)).toBe(false);
    expect(holds(cond('content', 'contains', ['hello there']), f)).toBe(true);
    expect(holds(cond('content', 'contains', ['**there**']), f)).toBe(false);
  });

  it('with several messages a message condition holds when any of them satisfies it (Chatwoot’s joined rows)', () => {
    const f = facts({
      messages: [message({ message_type: 0 }), message({ id: 901, message_type: 1, processed_message_content: 'Shipped today' })],
    });
    expect(holds(cond('message_type', 'equal_to', ['outgoing']), f)).toBe(true);
    expect(holds(cond('message_type', 'not_equal_to', ['incoming']), f)).toBe(true);
    expect(holds(cond('message_type', 'equal_to', ['template']), f)).toBe(false);
    expect(holds(cond('content', 'contains', ['shipped']), f)).toBe(true);
  });

  it('without messages a message key is absent', () => {
    const f = facts({ messages: [] });
    expect(holds(cond('content', 'is_not_present'), f)).toBe(true);
    expect(holds(cond('content', 'contains', ['order']), f)).toBe(false);
    expect(holds(cond('message_type', 'equal_to', ['incoming']), f)).toBe(false);
  });
});

describe('labels (one joined row per label)', () => {
  const f = facts({ conversation: conversation({ labels: ['vip', 'billing'] }) });
  const none = facts({ conversation: conversation({ labels: [] }) });

  it('equal_to: a label equal to the first value, ignoring case (further values are not read)', () => {
    expect(holds(cond('labels', 'equal_to', ['BILLING']), f)).toBe(true);
    expect(holds(cond('labels', 'equal_to', ['refund', 'vip']), f)).toBe(false);
    expect(holds(cond('labels', 'equal_to', ['vip']), none)).toBe(false);
  });

  it('not_equal_to: some other label is there; with no labels, nothing holds', () => {
    expect(holds(cond('labels', 'not_equal_to', ['vip']), f)).toBe(true);
    expect(holds(cond('labels', 'not_equal_to', ['vip']), facts({ conversation: conversation({ labels: ['vip'] }) }))).toBe(false);
    expect(holds(cond('labels', 'not_equal_to', ['vip']), none)).toBe(false);
  });

  it('presence: an empty list is absent', () => {
    expect(holds(cond('labels', 'is_present'), f)).toBe(true);
    expect(holds(cond('labels', 'is_present'), none)).toBe(false);
    expect(holds(cond('labels', 'is_not_present'), none)).toBe(true);
  });
});

describe('operators', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('starts_with compares as written (case kept); contains and does_not_contain ignore case', () => {
    const f = facts({ contact: contact({ phone_number: '+5511987654321', email: 'Ana@Example.com' }) });
    expect(holds(cond('phone_number', 'starts_with', ['+5511']), f)).toBe(true);
    expect(holds(cond('phone_number', 'starts_with', ['5511']), f)).toBe(false);
    expect(holds(cond('phone_number', 'starts_with', ['+1', '+55']), f)).toBe(true);
    expect(holds(cond('email', 'starts_with', ['ana']), f)).toBe(false);
    expect(holds(cond('email', 'contains', ['ana@']), f)).toBe(true);
  });

  it('an absent value contains nothing, so does_not_contain holds on it', () => {
    const f = facts({ contact: contact({ email: null }) });
    expect(holds(cond('email', 'contains', ['a']), f)).toBe(false);
    expect(holds(cond('email', 'does_not_contain', ['a']), f)).toBe(true);
    expect(holds(cond('email', 'not_equal_to', ['ana@example.com']), f)).toBe(true);
  });

  it('presence: null, undefined and empty text are absent; 0 and false are present', () => {
    const f = facts({ conversation: conversation({ custom_attributes: { blank: '', zero: 0, no: false, nil: null } }) });
    expect(
      ['blank', 'zero', 'no', 'nil', 'never'].map((k) =>
        holds(cond(k, 'is_present', [], { custom_attribute_type: 'conversation_attribute' }), f),
      ),
    ).toEqual([false, true, true, false, false]);
  });

  it('days_before: a time (Unix seconds or a date text) earlier than that many days before now', () => {
    vi.useFakeTimers({ now: new Date('2026-01-11T00:00:00Z') });
    const f = facts({ conversation: conversation({ custom_attributes: { since: T0, day: '2025-12-31', soon: 'soon' } }) });
    const at = (key: string, days: number) =>
      holds(cond(key, 'days_before', [days], { custom_attribute_type: 'conversation_attribute' }), f);
    expect(at('since', 7)).toBe(true); // 1 January < 4 January
    expect(at('since', 10)).toBe(false); // 1 January is not before 1 January
    expect(at('day', 10)).toBe(true);
    expect(at('day', 11)).toBe(false);
    expect(at('soon', 0)).toBe(false);
    expect(at('absent', 0)).toBe(false);
  });

  it('an operator it does not know never holds', () => {
    expect(holds(cond('status', 'resembles', ['open']), facts())).toBe(false);
  });
});

describe('attribute_changed', () => {
  const f = facts({ changes: { status: ['open', 'resolved'], labels: [['vip'], ['vip', 'billing']], priority: [null, 'urgent'] } });
  const changed = (key: string, from: (string | number | boolean)[], to: (string | number | boolean)[]) =>
    holds(cond(key, 'attribute_changed', { from, to }), f);

  it('holds when the change went from one of `from` to one of `to`, ignoring case', () => {
    expect(changed('status', ['OPEN', 'pending'], ['resolved'])).toBe(true);
    expect(changed('status', ['pending'], ['resolved'])).toBe(false);
    expect(changed('status', ['open'], ['open', 'snoozed'])).toBe(false);
    expect(changed('priority', ['low', 'medium'], ['urgent'])).toBe(false);
    expect(changed('priority', [''], ['urgent'])).toBe(true);
  });

  it('never holds for a key the event did not change', () => {
    expect(changed('team_id', [''], [''])).toBe(false);
    expect(holds(cond('status', 'attribute_changed', { from: ['open'], to: ['resolved'] }), facts())).toBe(false);
  });
});

describe('chaining (conditionsHold)', () => {
  const yes = cond('status', 'equal_to', ['open']);
  const no = cond('status', 'equal_to', ['resolved']);
  const chain = (...cs: [Condition, string | null | undefined][]) =>
    cs.map(([c, q]) => ({ ...c, ...(q === undefined ? {} : { query_operator: q }) }));
  const f = facts();

  it('no conditions: the rule always runs', () => {
    expect(conditionsHold([], f)).toBe(true);
  });

  it('binds AND tighter than OR, left to right: A OR B AND C is A OR (B AND C)', () => {
    expect(conditionsHold(chain([yes, 'or'], [no, 'and'], [no, null]), f)).toBe(true);
    expect(conditionsHold(chain([no, 'or'], [yes, 'and'], [no, null]), f)).toBe(false);
    expect(conditionsHold(chain([no, 'and'], [no, 'or'], [yes, null]), f)).toBe(true);
    expect(conditionsHold(chain([yes, 'and'], [no, 'or'], [no, null]), f)).toBe(false);
    expect(conditionsHold(chain([no, 'or'], [yes, 'and'], [yes, 'or'], [no, null]), f)).toBe(true);
  });

  it('reads the query operator in any case; a missing one joins with AND; the last one’s is ignored', () => {
    expect(conditionsHold(chain([no, 'OR'], [yes, 'Or']), f)).toBe(true);
    expect(conditionsHold(chain([yes, undefined], [no, null]), f)).toBe(false);
    expect(conditionsHold(chain([yes, ''], [no, null]), f)).toBe(false);
    expect(conditionsHold(chain([no, 'or']), f)).toBe(false);
    expect(conditionsHold(chain([yes, 'and']), f)).toBe(true);
  });

  it('a false condition ends its AND-run: the rest of the run is not read', () => {
    // `labels` on a record without them cannot be read; after a false condition in its run it is never asked.
    const broken = facts({ conversation: { ...conversation(), labels: undefined as unknown as string[] } });
    const unreadable = cond('labels', 'equal_to', ['vip']);
    expect(conditionsHold(chain([no, 'and'], [unreadable, 'or'], [yes, null]), broken)).toBe(true);
    expect(() => conditionsHold(chain([yes, 'and'], [unreadable, null]), broken)).toThrow(TypeError);
  });
});
