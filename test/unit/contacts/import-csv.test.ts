import { describe, expect, it } from 'vitest';
import { ServiceError } from '#shared/errors.ts';
import {
  columnName,
  failedRecordsCsv,
  IMPORT_MAX_ROWS,
  identifiable,
  readImportFile,
  rowContact,
} from '#shared/domain/contacts/import-csv.ts';

const file = (s: string) => Buffer.from(s, 'utf8');

/** The 422 `import_file` message a file gets. */
function refusal(data: Buffer): string {
  try {
    readImportFile(data);
  } catch (err) {
    expect(err).toBeInstanceOf(ServiceError);
    const e = err as ServiceError;
    expect(e.kind).toBe('invalid');
    expect(e.errors[0].field).toBe('import_file');
    return e.errors[0].message;
  }
  throw new Error('the file was read');
}

describe('contacts import: the file', () => {
  it('reads a header and rows: quoted fields, CRLF, a byte-order mark, blank lines skipped, short rows kept', () => {
    const t = readImportFile(file('\uFEFFName,Email,Phone Number,plan\r\n"Ana, ""A""",ana@x.io,+15550001,gold\r\n\r\nBo,bo@x.io\r\n'));
    expect(t.header).toEqual(['Name', 'Email', 'Phone Number', 'plan']);
    expect(t.columns).toEqual(['name', 'email', 'phone_number', 'plan']);
    expect(t.rows).toEqual([
      ['Ana, "A"', 'ana@x.io', '+15550001', 'gold'],
      ['Bo', 'bo@x.io'],
    ]);
  });

  it('normalizes header names as columns', () => {
    expect(columnName(' Phone-Number ')).toBe('phone_number');
    expect(columnName('\uFEFFEMAIL')).toBe('email');
    expect(columnName('company:name')).toBe('company_name');
  });

  it('refuses what is not a UTF-8 CSV of contacts, with the reason', () => {
    expect(refusal(Buffer.from([0x6e, 0x61, 0x6d, 0x65, 0x0a, 0xe9, 0x74, 0xe9, 0x0a]))).toMatch(/not UTF-8/);
    expect(refusal(Buffer.from('name\n\u0000x\n', 'utf8'))).toMatch(/NUL/);
    expect(refusal(file('name,email\n"unclosed,a@b.c\n'))).toMatch(/not valid CSV/);
    expect(refusal(file('ana@x.io,+15550001\nbo@x.io,+15550002\n'))).toMatch(/header row/);
    expect(refusal(file(''))).toMatch(/header row/);
    expect(refusal(file('name,email\n'))).toMatch(/no rows/);
    expect(refusal(file('email,Email\na@b.c,d@e.f\n'))).toMatch(/email twice/);
    const many = `email\n${Array.from({ length: IMPORT_MAX_ROWS + 1 }, (_, i) => `u${i}@x.io`).join('\n')}\n`;
    expect(refusal(file(many))).toMatch(/more than 10000 rows/);
    expect(
      readImportFile(file(`email\n${Array.from({ length: IMPORT_MAX_ROWS }, (_, i) => `u${i}@x.io`).join('\n')}\n`)).rows,
    ).toHaveLength(IMPORT_MAX_ROWS);
  });
});

describe('contacts import: a row as its contact (Chatwoot’s ContactManager)', () => {
  const table = readImportFile(file('name,email,phone_number,identifier,company,city,plan,empty\nx\n'));
  const row = (...fields: string[]) => rowContact(table, fields);

  it('maps the contact columns, company and city to the additional attributes, every other filled column to custom attributes', () => {
    expect(row(' Ana ', 'Ana@X.io', '15550001', 'crm-1', 'Acme', 'Lisbon', 'gold', '')).toEqual({
      ok: true,
      contact: {
        name: 'Ana',
        email: 'ana@x.io',
        phone_number: '+15550001',
        identifier: 'crm-1',
        additional_attributes: { company_name: 'Acme', city: 'Lisbon' },
        custom_attributes: { company: 'Acme', city: 'Lisbon', plan: 'gold' },
      },
    });
  });

  it('sets nothing for blank cells; a row of a name alone is a contact without email, phone number or identifier', () => {
    const out = row('Cy', '', '', '');
    expect(out).toEqual({ ok: true, contact: { name: 'Cy', additional_attributes: {}, custom_attributes: {} } });
    expect(out.ok && identifiable(out.contact)).toBe(false);
    expect(identifiable({ phone_number: '+1555' })).toBe(true);
  });

  it('refuses a row the contact checks refuse, with Chatwoot’s full messages', () => {
    expect(row('Ana', 'not-an-email', '0123')).toEqual({
      ok: false,
      errors: 'Email is not a valid email address, Phone number should be in e164 format',
    });
    expect(row('x'.repeat(256))).toMatchObject({ ok: false, errors: expect.stringMatching(/^Name /) });
    expect(row('a', 'b@c.d', '', '', '', '', '', '', 'one too many')).toEqual({ ok: false, errors: 'Row has 9 fields, the header 8' });
  });

  it('writes the failed records: the file’s header and errors, each refused row as the file had it', () => {
    const t = readImportFile(file('Name,Email\n"Ana, A",bad\nBo,bo@x.io\nCy\n'));
    expect(
      failedRecordsCsv(t, [
        { row: 0, errors: 'Email is not a valid email address' },
        { row: 2, errors: 'Email has already been taken' },
      ]),
    ).toBe('Name,Email,errors\n"Ana, A",bad,Email is not a valid email address\nCy,,Email has already been taken\n');
  });
});
