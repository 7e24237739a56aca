import { describe, expect, it } from 'vitest';
import { evaluate, exactLookups, FilterError, parseFilter, UNKNOWN, type Condition } from '#shared/domain/filters/language.ts';
import { conversationReader } from '#shared/domain/filters/service.ts';
import type { ConversationRecord } from '#shared/model/conversations.ts';

// Chatwoot's filter language without I/O: validation messages, operators, AND/OR precedence, and the
// three-valued verdict callers use to narrow on a projection before reading full items.

const NOW = Date.parse('2026-03-10T12:00:00Z') / 1000;
const day = (iso: string) => Date.parse(iso) / 1000;

const readerOf = (thing: Record<string, unknown>) => (c: Condition) =>
  c.custom ? (thing.custom_attributes as Record<string, unknown> | undefined)?.[c.key] : thing[c.key];

const contacts = (payload: unknown, attrs = [{ attribute_key: 'plan', attribute_display_type: 'text' }]) =>
  parseFilter('contacts', payload, attrs, NOW);
const conversations = (payload: unknown, attrs = [{ attribute_key: 'order_total', attribute_display_type: 'number' }]) =>
  parseFilter('conversations', payload, attrs, NOW);

function refusal(fn: () => unknown): FilterError {
  try {
    fn();
  } catch (err) {
    if (err instanceof FilterError) return err;
    throw err;
  }
  throw new Error('expected a FilterError');
}

describe('parseFilter', () => {
  it('refuses an attribute_key that is not text (an object from `payload[][attribute_key][x]=`) as a filter error', () => {
    const err = refusal(() => conversations([{ attribute_key: { toString: 1 }, filter_operator: 'equal_to', values: ['x'] }]));
    expect(err.field).toBe('payload[0].attribute_key');
  });

  it('reads a campaign conversation’s campaign_id from its additional attributes', () => {
    const [c] = conversations([{ attribute_key: 'campaign_id', filter_operator: 'equal_to', values: [3] }]);
    const read = conversationReader({ additional_attributes: { campaign_id: 3 } } as unknown as ConversationRecord);
    expect(read(c)).toBe(3);
    expect(conversationReader({ additional_attributes: {} } as unknown as ConversationRecord)(c)).toBeUndefined();
  });

  it('refuses an unknown key with Chatwoot’s message naming the model’s keys', () => {
    const err = refusal(() => contacts([{ attribute_key: 'shoe_size', filter_operator: 'equal_to', values: ['42'] }]));
    expect(err.message).toMatch(/^Invalid attribute key - \[shoe_size\]\. The key should be one of \[name,phone_number,email,identifier,/);
    expect(err.message).toMatch(/or a custom attribute defined in the account\.$/);
    expect(err.field).toBe('payload[0].attribute_key');
  });

  it('refuses an operator the key does not allow, and one that does not exist at all, for custom attributes too', () => {
    expect(refusal(() => contacts([{ attribute_key: 'identifier', filter_operator: 'contains', values: ['x'] }])).message).toBe(
      'Invalid operator. The allowed operators for identifier are [equal_to,not_equal_to].',
    );
    expect(refusal(() => contacts([{ attribute_key: 'plan', filter_operator: 'resembles', values: ['x'] }])).field).toBe(
      'payload[0].filter_operator',
    );
    expect(refusal(() => conversations([{ attribute_key: 'status', filter_operator: 'contains', values: ['o'] }])).message).toBe(
      'Invalid operator. The allowed operators for status are [equal_to,not_equal_to].',
    );
  });

  it('refuses missing values except for the presence operators, and a query operator other than AND/OR', () => {
    expect(refusal(() => contacts([{ attribute_key: 'email', filter_operator: 'equal_to', values: [] }])).message).toBe(
      'Invalid value. The values provided for email are invalid',
    );
    expect(contacts([{ attribute_key: 'labels', filter_operator: 'is_present' }])).toHaveLength(1);
    expect(
      refusal(() =>
        contacts([
          { attribute_key: 'email', filter_operator: 'equal_to', values: ['a@x.test'], query_operator: 'XOR' },
          { attribute_key: 'name', filter_operator: 'equal_to', values: ['a'] },
        ]),
      ).message,
    ).toBe('Query operator must be either "AND" or "OR".');
    expect(refusal(() => contacts({ attribute_key: 'email' })).field).toBe('payload');
    expect(
      refusal(() => contacts([{ attribute_key: 'created_at', filter_operator: 'is_greater_than', values: ['not a date'] }])).field,
    ).toBe('payload[0].values');
  });

  it('adds the + Chatwoot adds to phone numbers (keeping one that is there), lower-cases text, takes lower-case query operators', () => {
    const [a, b] = contacts([
      { attribute_key: 'phone_number', filter_operator: 'equal_to', values: ['5511987654321'], query_operator: 'or' },
      { attribute_key: 'phone_number', filter_operator: 'equal_to', values: ['+5511987654321'] },
    ]);
    expect(a.values).toEqual(['+5511987654321']);
    expect(a.join).toBe('OR');
    expect(b.values).toEqual(['+5511987654321']);
    expect(contacts([{ attribute_key: 'email', filter_operator: 'equal_to', values: ['Ann@X.Test', 'other'] }])[0].values).toEqual([
      'ann@x.test',
    ]);
    expect(conversations([{ attribute_key: 'status', filter_operator: 'equal_to', values: ['open', 'Pending'] }])[0].values).toEqual([
      'open',
      'pending',
    ]);
  });

  it('turns days_before into a date that many days before now', () => {
    expect(contacts([{ attribute_key: 'created_at', filter_operator: 'days_before', values: ['3'] }])[0].values).toEqual(['2026-03-07']);
  });

  it('ignores the last condition’s query operator and ANDs a missing one in the middle; an empty payload matches everything', () => {
    const cs = contacts([
      { attribute_key: 'name', filter_operator: 'contains', values: ['a'] },
      { attribute_key: 'name', filter_operator: 'contains', values: ['b'], query_operator: 'OR' },
    ]);
    expect(cs.map((c) => c.join)).toEqual(['AND', null]);
    expect(evaluate(contacts([]), () => UNKNOWN)).toBe(true);
  });
});

describe('evaluate', () => {
  const ann = {
    name: 'Ann Lee',
    email: 'ann@acme.test',
    phone_number: '+5511987654321',
    identifier: '5511987654321@s.whatsapp.net',
    city: 'São Paulo',
    labels: ['vip'],
    created_at: day('2026-03-01T10:00:00Z'),
    last_activity_at: null,
    blocked: false,
    custom_attributes: { plan: 'Gold' },
  };
  const verdict = (payload: unknown, thing: Record<string, unknown> = ann) => evaluate(contacts(payload), readerOf(thing));

  it('matches EvolutionAPI’s OR’ed phone filter (without +) with either Brazilian form', () => {
    const payload = [
      { attribute_key: 'phone_number', filter_operator: 'equal_to', values: ['5511987654321'], query_operator: 'OR' },
      { attribute_key: 'phone_number', filter_operator: 'equal_to', values: ['551187654321'], query_operator: null },
    ];
    expect(verdict(payload)).toBe(true);
    expect(verdict(payload, { ...ann, phone_number: '+551187654321' })).toBe(true);
    expect(verdict(payload, { ...ann, phone_number: '+5511000000000' })).toBe(false);
  });

  it('compares text ignoring case; contains any of the values, does_not_contain none; starts_with a prefix', () => {
    expect(verdict([{ attribute_key: 'email', filter_operator: 'equal_to', values: ['ANN@acme.test'] }])).toBe(true);
    expect(verdict([{ attribute_key: 'name', filter_operator: 'contains', values: ['zzz', ' LEE '] }])).toBe(true);
    expect(verdict([{ attribute_key: 'name', filter_operator: 'does_not_contain', values: ['zzz', 'lee'] }])).toBe(false);
    expect(verdict([{ attribute_key: 'phone_number', filter_operator: 'starts_with', values: ['5511'] }])).toBe(true);
    expect(verdict([{ attribute_key: 'phone_number', filter_operator: 'starts_with', values: ['5521'] }])).toBe(false);
    expect(verdict([{ attribute_key: 'identifier', filter_operator: 'not_equal_to', values: ['5511987654321@S.WHATSAPP.NET'] }])).toBe(
      false,
    );
  });

  it('treats a missing field as SQL NULL: only is_not_present holds (and not_equal_to on custom attributes)', () => {
    const none = { ...ann, email: null, custom_attributes: {} };
    expect(verdict([{ attribute_key: 'email', filter_operator: 'not_equal_to', values: ['x@y.test'] }], none)).toBe(false);
    expect(verdict([{ attribute_key: 'email', filter_operator: 'does_not_contain', values: ['x'] }], none)).toBe(false);
    expect(verdict([{ attribute_key: 'plan', filter_operator: 'not_equal_to', values: ['gold'] }], none)).toBe(true);
    expect(verdict([{ attribute_key: 'plan', filter_operator: 'is_not_present' }], none)).toBe(true);
    expect(verdict([{ attribute_key: 'plan', filter_operator: 'equal_to', values: ['GOLD'] }])).toBe(true);
  });

  it('reads labels: equal_to any, not_equal_to none, presence', () => {
    expect(verdict([{ attribute_key: 'labels', filter_operator: 'equal_to', values: ['VIP'] }])).toBe(true);
    expect(verdict([{ attribute_key: 'labels', filter_operator: 'not_equal_to', values: ['vip'] }])).toBe(false);
    expect(verdict([{ attribute_key: 'labels', filter_operator: 'is_not_present' }], { ...ann, labels: [] })).toBe(true);
  });

  it('compares dates by day and days_before as "earlier than that day"', () => {
    expect(verdict([{ attribute_key: 'created_at', filter_operator: 'is_greater_than', values: ['2026-02-28'] }])).toBe(true);
    expect(verdict([{ attribute_key: 'created_at', filter_operator: 'is_less_than', values: ['2026-03-01'] }])).toBe(false);
    expect(verdict([{ attribute_key: 'created_at', filter_operator: 'days_before', values: [7] }])).toBe(true);
    expect(verdict([{ attribute_key: 'created_at', filter_operator: 'days_before', values: [10] }])).toBe(false);
    expect(verdict([{ attribute_key: 'last_activity_at', filter_operator: 'is_less_than', values: ['2030-01-01'] }])).toBe(false);
  });

  it('binds AND tighter than OR, left to right (A OR B AND C = A OR (B AND C))', () => {
    const t = { attribute_key: 'name', filter_operator: 'contains', values: ['ann'] };
    const f = { attribute_key: 'name', filter_operator: 'contains', values: ['bob'] };
    const chain = (...cs: [Record<string, unknown>, string | null][]) => cs.map(([c, q]) => ({ ...c, query_operator: q }));
    expect(verdict(chain([t, 'OR'], [f, 'AND'], [f, null]))).toBe(true);
    expect(verdict(chain([f, 'OR'], [t, 'AND'], [f, null]))).toBe(false);
    expect(verdict(chain([f, 'AND'], [f, 'OR'], [t, null]))).toBe(true);
    expect(verdict(chain([t, 'AND'], [f, 'OR'], [f, null]))).toBe(false);
  });

  it('is undefined only where an unknown field decides it (Kleene logic)', () => {
    const known = { attribute_key: 'email', filter_operator: 'equal_to', values: ['ann@acme.test'] };
    const custom = { attribute_key: 'plan', filter_operator: 'equal_to', values: ['gold'] };
    const slim = (c: Condition) => (c.custom ? UNKNOWN : (ann as Record<string, unknown>)[c.key]);
    const run = (payload: unknown) => evaluate(contacts(payload), slim);
    expect(run([{ ...known, query_operator: 'OR' }, custom])).toBe(true);
    expect(run([{ ...known, query_operator: 'AND' }, custom])).toBeUndefined();
    expect(run([{ ...known, values: ['x@y.test'], query_operator: 'AND' }, custom])).toBe(false);
    expect(run([{ ...known, values: ['x@y.test'], query_operator: 'OR' }, custom])).toBeUndefined();
  });

  it('conversations: ids compare as numbers whatever their JSON type, status with any of the values', () => {
    const row = { status: 'pending', inbox_id: 7, assignee_id: null, team_id: 3, labels: [], custom_attributes: { order_total: 120.5 } };
    const v = (payload: unknown) => evaluate(conversations(payload), readerOf(row));
    expect(v([{ attribute_key: 'inbox_id', filter_operator: 'equal_to', values: ['7'] }])).toBe(true);
    expect(v([{ attribute_key: 'team_id', filter_operator: 'equal_to', values: [{ id: 3, name: 'Sales' }] }])).toBe(true);
    expect(v([{ attribute_key: 'status', filter_operator: 'equal_to', values: ['open', 'pending'] }])).toBe(true);
    expect(v([{ attribute_key: 'assignee_id', filter_operator: 'is_not_present' }])).toBe(true);
    expect(v([{ attribute_key: 'order_total', filter_operator: 'is_greater_than', values: ['100'] }])).toBe(true);
    expect(v([{ attribute_key: 'order_total', filter_operator: 'is_less_than', values: [100] }])).toBe(false);
  });
});

describe('exactLookups', () => {
  const keys = ['email', 'phone_number'];
  it('gives the values to look up when every OR-group pins an exact email or phone (EvolutionAPI’s filter)', () => {
    const cs = contacts([
      { attribute_key: 'phone_number', filter_operator: 'equal_to', values: ['5511987654321'], query_operator: 'OR' },
      { attribute_key: 'phone_number', filter_operator: 'equal_to', values: ['551187654321'], query_operator: null },
    ]);
    expect(exactLookups(cs, keys)).toEqual([
      { key: 'phone_number', value: '+5511987654321' },
      { key: 'phone_number', value: '+551187654321' },
    ]);
    const anded = contacts([
      { attribute_key: 'name', filter_operator: 'contains', values: ['ann'], query_operator: 'AND' },
      { attribute_key: 'email', filter_operator: 'equal_to', values: ['Ann@X.test'] },
    ]);
    expect(exactLookups(anded, keys)).toEqual([{ key: 'email', value: 'ann@x.test' }]);
  });

  it('gives none when a group could match without one (OR with a contains, not_equal_to, identifier, empty payload)', () => {
    const phone = { attribute_key: 'phone_number', filter_operator: 'equal_to', values: ['5511987654321'] };
    expect(
      exactLookups(
        contacts([
          { ...phone, query_operator: 'OR' },
          { attribute_key: 'name', filter_operator: 'contains', values: ['a'] },
        ]),
        keys,
      ),
    ).toBeUndefined();
    expect(exactLookups(contacts([{ ...phone, filter_operator: 'not_equal_to' }]), keys)).toBeUndefined();
    expect(exactLookups(contacts([{ attribute_key: 'identifier', filter_operator: 'equal_to', values: ['x'] }]), keys)).toBeUndefined();
    expect(exactLookups([], keys)).toBeUndefined();
  });
});

describe('keys, values and types at the edges', () => {
  const verdictOn = (
    model: 'contacts' | 'conversations',
    payload: unknown,
    thing: Record<string, unknown>,
    attrs: { attribute_key: string; attribute_display_type: string }[] = [],
  ) => evaluate(parseFilter(model, payload, attrs, NOW), readerOf(thing));

  it('refuses keys that only an object’s prototype has, and conditions that are not objects', () => {
    for (const key of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect(refusal(() => contacts([{ attribute_key: key, filter_operator: 'equal_to', values: ['x'] }])).field, key).toBe(
        'payload[0].attribute_key',
      );
    }
    const err = refusal(() => contacts([{ attribute_key: 'labels', filter_operator: 'is_present', query_operator: 'and' }, 'email']));
    expect([err.message, err.field]).toEqual(['Each condition must be an object', 'payload[1]']);
  });

  it('no payload is refused naming the field; an empty one filters nothing; a scalar value is a list of one; an empty one is no value', () => {
    for (const missing of [undefined, null]) {
      const err = refusal(() => parseFilter('contacts', missing, [], NOW));
      expect([err.message, err.field, err.code]).toEqual(['payload is required', 'payload', 'required']);
    }
    expect(parseFilter('contacts', [], [], NOW)).toEqual([]);
    expect(contacts([{ attribute_key: 'email', filter_operator: 'equal_to', values: 'Ann@X.test' }])[0].values).toEqual(['ann@x.test']);
    expect(refusal(() => contacts([{ attribute_key: 'email', filter_operator: 'equal_to', values: '' }])).field).toBe('payload[0].values');
    expect(refusal(() => contacts([{ attribute_key: 'email', filter_operator: 'equal_to', values: [null, ''] }])).field).toBe(
      'payload[0].values',
    );
  });

  it('conversation status `all` is every status', () => {
    const [c] = conversations([{ attribute_key: 'status', filter_operator: 'equal_to', values: ['all'] }]);
    expect(c.values).toEqual(['open', 'resolved', 'pending', 'snoozed']);
    for (const status of ['open', 'resolved', 'pending', 'snoozed'])
      expect(verdictOn('conversations', [{ attribute_key: 'status', filter_operator: 'equal_to', values: ['all'] }], { status })).toBe(
        true,
      );
    expect(
      verdictOn('conversations', [{ attribute_key: 'status', filter_operator: 'not_equal_to', values: ['open', 'pending'] }], {
        status: 'pending',
      }),
    ).toBe(false);
  });

  it('days_before needs a number of days', () => {
    expect(refusal(() => contacts([{ attribute_key: 'created_at', filter_operator: 'days_before', values: ['a week'] }])).field).toBe(
      'payload[0].values',
    );
    // A fraction of a day counts whole days.
    expect(contacts([{ attribute_key: 'created_at', filter_operator: 'days_before', values: [2.9] }])[0].values).toEqual(['2026-03-08']);
  });

  it('dates given as Unix seconds or ISO text compare by UTC day', () => {
    const [c] = contacts([{ attribute_key: 'created_at', filter_operator: 'is_greater_than', values: [day('2026-02-28T23:00:00Z')] }]);
    expect(c.values).toEqual(['2026-02-28']);
    expect(
      verdictOn('contacts', [{ attribute_key: 'created_at', filter_operator: 'is_greater_than', values: ['2026-02-28'] }], {
        created_at: '2026-03-01T00:30:00Z',
      }),
    ).toBe(true);
    expect(
      verdictOn('contacts', [{ attribute_key: 'created_at', filter_operator: 'is_less_than', values: ['2026-03-01'] }], {
        created_at: day('2026-03-01T23:59:59Z'),
      }),
    ).toBe(false);
    expect(
      verdictOn('contacts', [{ attribute_key: 'created_at', filter_operator: 'is_less_than', values: ['2026-03-02'] }], {
        created_at: day('2026-03-01T23:59:59Z'),
      }),
    ).toBe(true);
  });

  it('custom attributes compare by their display type: checkbox, date, list and link as text, an unknown type as text', () => {
    const attrs = [
      { attribute_key: 'vip', attribute_display_type: 'checkbox' },
      { attribute_key: 'renewal', attribute_display_type: 'date' },
      { attribute_key: 'tier', attribute_display_type: 'list' },
      { attribute_key: 'site', attribute_display_type: 'link' },
      { attribute_key: 'odd', attribute_display_type: 'hologram' },
      { attribute_key: 'score', attribute_display_type: 'percent' },
    ];
    const cs = contacts(
      attrs.map((a, i) => ({
        attribute_key: a.attribute_key,
        filter_operator: 'is_present',
        query_operator: i < attrs.length - 1 ? 'AND' : undefined,
      })),
      attrs,
    );
    expect(cs.map((c) => [c.key, c.type, c.custom])).toEqual([
      ['vip', 'boolean', true],
      ['renewal', 'date', true],
      ['tier', 'text', true],
      ['site', 'text', true],
      ['odd', 'text', true],
      ['score', 'number', true],
    ]);
    const thing = {
      custom_attributes: { vip: true, renewal: '2026-06-30', tier: 'Gold', site: 'https://Acme.test', score: 87.5, odd: 'X' },
    };
    const v = (payload: unknown) => verdictOn('contacts', payload, thing, attrs);
    expect(v([{ attribute_key: 'vip', filter_operator: 'equal_to', values: [true] }])).toBe(true);
    expect(v([{ attribute_key: 'vip', filter_operator: 'equal_to', values: ['false'] }])).toBe(false);
    expect(v([{ attribute_key: 'renewal', filter_operator: 'is_greater_than', values: ['2026-06-29'] }])).toBe(true);
    expect(v([{ attribute_key: 'renewal', filter_operator: 'is_less_than', values: ['2026-06-30'] }])).toBe(false);
    expect(v([{ attribute_key: 'tier', filter_operator: 'contains', values: ['OL'] }])).toBe(true);
    expect(v([{ attribute_key: 'site', filter_operator: 'equal_to', values: ['https://acme.test'] }])).toBe(true);
    expect(v([{ attribute_key: 'score', filter_operator: 'is_greater_than', values: ['87'] }])).toBe(true);
    expect(v([{ attribute_key: 'odd', filter_operator: 'equal_to', values: ['x'] }])).toBe(true);
  });

  it('a comparison between a number and text holds neither way', () => {
    const attrs = [{ attribute_key: 'order_total', attribute_display_type: 'number' }];
    const thing = { custom_attributes: { order_total: 'unknown' } };
    expect(
      verdictOn('conversations', [{ attribute_key: 'order_total', filter_operator: 'is_greater_than', values: [1] }], thing, attrs),
    ).toBe(false);
    expect(verdictOn('conversations', [{ attribute_key: 'order_total', filter_operator: 'is_less_than', values: [1] }], thing, attrs)).toBe(
      false,
    );
    expect(
      refusal(() => conversations([{ attribute_key: 'order_total', filter_operator: 'is_greater_than', values: ['lots'] }])).field,
    ).toBe('payload[0].values');
  });

  it('the contact’s blocked flag compares as true/false, however it is written', () => {
    expect(verdictOn('contacts', [{ attribute_key: 'blocked', filter_operator: 'equal_to', values: [false] }], { blocked: false })).toBe(
      true,
    );
    expect(verdictOn('contacts', [{ attribute_key: 'blocked', filter_operator: 'equal_to', values: ['TRUE'] }], { blocked: true })).toBe(
      true,
    );
    expect(
      verdictOn('contacts', [{ attribute_key: 'blocked', filter_operator: 'not_equal_to', values: ['true'] }], { blocked: true }),
    ).toBe(false);
  });

  it('a conversation’s display id matches as text with contains, as a number with equal_to', () => {
    expect(
      verdictOn('conversations', [{ attribute_key: 'display_id', filter_operator: 'contains', values: ['12'] }], { display_id: 4120 }),
    ).toBe(true);
    expect(
      verdictOn('conversations', [{ attribute_key: 'display_id', filter_operator: 'equal_to', values: ['4120.0'] }], { display_id: 4120 }),
    ).toBe(true);
    expect(
      verdictOn('conversations', [{ attribute_key: 'display_id', filter_operator: 'equal_to', values: ['412'] }], { display_id: 4120 }),
    ).toBe(false);
  });

  it('empty text is absent for presence', () => {
    const plan = (value: unknown) => ({ custom_attributes: { plan: value } });
    const attrs = [{ attribute_key: 'plan', attribute_display_type: 'text' }];
    expect(verdictOn('contacts', [{ attribute_key: 'plan', filter_operator: 'is_present' }], plan(''), attrs)).toBe(false);
    expect(verdictOn('contacts', [{ attribute_key: 'plan', filter_operator: 'is_not_present' }], plan(''), attrs)).toBe(true);
    expect(verdictOn('contacts', [{ attribute_key: 'plan', filter_operator: 'is_present' }], plan('gold'), attrs)).toBe(true);
    expect(verdictOn('contacts', [{ attribute_key: 'plan', filter_operator: 'is_present' }], plan(0), attrs)).toBe(true);
  });
});
