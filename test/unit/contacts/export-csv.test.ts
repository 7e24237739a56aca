import { describe, expect, it } from 'vitest';
import { csvHeader, csvRow, DEFAULT_EXPORT_COLUMNS, exportColumns } from '#shared/domain/contacts/export-csv.ts';
import type { ContactRecord } from '#shared/model/contacts.ts';

const contact = (over: Partial<ContactRecord> = {}): ContactRecord => ({
  id: 7,
  account_id: 1,
  name: 'Ana',
  email: 'ana@example.com',
  phone_number: null,
  identifier: null,
  thumbnail: '',
  additional_attributes: {},
  custom_attributes: {},
  labels: [],
  last_activity_at: null,
  contact_type: 'lead',
  blocked: false,
  location: null,
  country_code: null,
  created_at: 1767323045,
  updated_at: 1767323045,
  version: 1,
  ...over,
});

describe('contacts export CSV', () => {
  it('keeps the asked columns that exist, in order, once; the default when none is asked', () => {
    expect(exportColumns(['email', 'password', 'id', 'email'])).toEqual(['email', 'id']);
    expect(exportColumns(undefined)).toEqual(DEFAULT_EXPORT_COLUMNS);
    expect(exportColumns([])).toEqual(DEFAULT_EXPORT_COLUMNS);
    // Only unknown columns: a header-less export, as Chatwoot's intersection gives.
    expect(exportColumns(['password'])).toEqual([]);
  });

  it('writes nulls empty, times as Ruby does, hashes as JSON, and quotes only what needs it', () => {
    const columns = ['id', 'name', 'phone_number', 'created_at', 'custom_attributes', 'blocked'];
    expect(csvHeader(columns)).toBe('id,name,phone_number,created_at,custom_attributes,blocked\n');
    expect(csvRow(contact({ name: 'Ana "A", Jr\nII', custom_attributes: { plan: 'gold' } }), columns)).toBe(
      '7,"Ana ""A"", Jr\nII",,2026-01-02 03:04:05 UTC,"{""plan"":""gold""}",false\n',
    );
  });
});
