import type { ContactRecord } from '#shared/model/contacts.ts';

// The CSV of Chatwoot's Account::ContactsExportJob: a header row of the columns asked for (only columns of the
// contacts table; id, name, email, phone_number when none is), then one row per contact. Pure.

/** The contacts table's columns Chatwoot may export (`Contact.column_names`), as this service stores them. */
export const EXPORT_COLUMNS = [
  'id',
  'name',
  'email',
  'phone_number',
  'account_id',
  'created_at',
  'updated_at',
  'additional_attributes',
  'identifier',
  'custom_attributes',
  'last_activity_at',
  'contact_type',
  'location',
  'country_code',
  'blocked',
  'company_id',
] as const;
export const DEFAULT_EXPORT_COLUMNS = ['id', 'name', 'email', 'phone_number'];

/** The columns asked for that exist, in the order given (Chatwoot's `column_names & Contact.column_names`); the default when none. */
export function exportColumns(asked: string[] | undefined): string[] {
  const known = new Set<string>(EXPORT_COLUMNS);
  const valid = [...new Set((asked ?? []).filter((c) => known.has(c)))];
  return asked?.length ? valid : DEFAULT_EXPORT_COLUMNS;
}

/** Ruby's `Time#to_s` in UTC: `2026-01-02 03:04:05 UTC`. */
const rubyTime = (t: number) => `${new Date(t * 1000).toISOString().slice(0, 19).replace('T', ' ')} UTC`;

function cell(c: ContactRecord, column: string): string {
  const v = (c as unknown as Record<string, unknown>)[column];
  if (v === null || v === undefined) return '';
  if (column === 'created_at' || column === 'updated_at' || column === 'last_activity_at') return rubyTime(Number(v));
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** RFC 4180 quoting, as Ruby's CSV writes: quoted only when it holds a comma, quote or line break. */
const quote = (s: string) => (/[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

/** One CSV line of plain values (the export's header, the import's failed records). */
export const csvLine = (values: string[]) => `${values.map(quote).join(',')}\n`;
export const csvHeader = (columns: string[]) => csvLine(columns);
export const csvRow = (c: ContactRecord, columns: string[]) => `${columns.map((col) => quote(cell(c, col))).join(',')}\n`;
