import { describe, expect, it } from 'vitest';
import { mergedContact } from '#shared/domain/contacts/merge.ts';
import type { ContactRecord } from '#shared/model/contacts.ts';

// What the base contact becomes when another is merged into it: its own values kept, the mergee's
// where the base's are blank, attribute hashes merged with the base winning, labels united.

const contact = (over: Partial<ContactRecord>): ContactRecord => ({
  id: 1,
  account_id: 1,
  name: '',
  email: null,
  phone_number: null,
  identifier: null,
  thumbnail: '',
  additional_attributes: {},
  custom_attributes: {},
  labels: [],
  last_activity_at: null,
  contact_type: 'visitor',
  blocked: false,
  location: null,
  country_code: null,
  created_at: 100,
  updated_at: 100,
  version: 3,
  ...over,
});

describe('mergedContact', () => {
  it('keeps the base’s values and takes the mergee’s where the base has none', () => {
    const base = contact({
      id: 1,
      name: 'Maria Silva',
      phone_number: '+5511987654321',
      custom_attributes: { plan: 'gold', empty: '' },
      labels: ['a'],
    });
    const mergee = contact({
      id: 2,
      name: 'Maria',
      phone_number: '+551187654321',
      email: 'maria@x.test',
      identifier: 'm@s.whatsapp.net',
      thumbnail: 'https://img/m.png',
      custom_attributes: { plan: 'silver', since: 2020, empty: 'filled' },
      additional_attributes: { city: 'Rio' },
      labels: ['a', 'b'],
      last_activity_at: 500,
      contact_type: 'lead',
    });
    const out = mergedContact(base, mergee);
    expect(out).toMatchObject({
      id: 1,
      version: 3,
      name: 'Maria Silva',
      phone_number: '+5511987654321',
      email: 'maria@x.test',
      identifier: 'm@s.whatsapp.net',
      thumbnail: 'https://img/m.png',
      custom_attributes: { plan: 'gold', since: 2020, empty: 'filled' },
      additional_attributes: { city: 'Rio' },
      labels: ['a', 'b'],
      last_activity_at: 500,
      contact_type: 'lead',
      created_at: 100,
    });
  });

  it('keeps the later activity time and the base’s blocked flag', () => {
    const out = mergedContact(contact({ last_activity_at: 900, blocked: true }), contact({ id: 2, last_activity_at: 500, blocked: false }));
    expect(out.last_activity_at).toBe(900);
    expect(out.blocked).toBe(true);
    expect(out.contact_type).toBe('visitor');
  });
});
