import { CsvError, parse } from 'csv-parse/sync';
import { invalidField, ServiceError, type ErrorEntry } from '#shared/errors.ts';
import type { FailedRow } from '#shared/model/contact-imports.ts';
import { parseOrThrow } from '#shared/validate.ts';
import { csvLine } from './export-csv.ts';
import { ContactUpdateSchema } from './schemas.ts';

// The CSV of a contacts import (Chatwoot's DataImportJob and DataImport::ContactManager), pure: the file read into a
// header and rows (or a 422 saying why it cannot be), each row mapped to the contact it means, and the failed-records
// CSV (the file's own header and rows, with Chatwoot's `errors` column).

/** At most this many data rows in one file (Chatwoot has no bound; the request's 4.7 MB body is the other). */
export const IMPORT_MAX_ROWS = 10_000;

/** The columns that are a contact's own fields; every other column is a custom attribute (as Chatwoot does). */
export const CONTACT_COLUMNS = ['name', 'email', 'phone_number', 'identifier'] as const;

export interface ImportTable {
  /** The header row as the file has it (the failed-records CSV repeats it). */
  header: string[];
  /** The header's names normalized (see `columnName`); `''` for a column without a name (ignored). */
  columns: string[];
  /** The data rows, each as many fields as it has. */
  rows: string[][];
}

/** A header name as a column: trimmed, lower-cased, spaces, hyphens and colons as `_` (`Phone Number` → `phone_number`). */
export const columnName = (h: string) =>
  h
    .replace(/^\uFEFF/, '')
    .trim()
    .toLowerCase()
    .replace(/[\s:-]+/g, '_');

const badFile = (message: string) => invalidField('import_file', message);

/**
 * The file as a table, or 422 (`import_file`) when it is not UTF-8 text (a byte-order mark is fine), not CSV, has no
 * header naming at least one contact column, no data row, a name twice in its header, or more than
 * IMPORT_MAX_ROWS rows. Blank lines are skipped; a row may have fewer fields than the header (the rest are blank).
 */
export function readImportFile(data: Buffer): ImportTable {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(data);
  } catch {
    throw badFile('is not UTF-8 text: save the CSV as UTF-8');
  }
  if (text.includes('\u0000')) throw badFile('is not a CSV text file (it holds NUL bytes)');
  let records: string[][];
  try {
    records = parse(text, { relax_column_count: true, skip_empty_lines: true, to: IMPORT_MAX_ROWS + 2 });
  } catch (err) {
    if (err instanceof CsvError) throw badFile(`is not valid CSV: ${err.message}`);
    throw err;
  }
  const [header, ...rows] = records;
  const columns = (header ?? []).map(columnName);
  if (!columns.some((c) => (CONTACT_COLUMNS as readonly string[]).includes(c))) {
    throw badFile(`must start with a header row naming its columns, at least one of ${CONTACT_COLUMNS.join(', ')}`);
  }
  const named = columns.filter(Boolean);
  const twice = named.find((c, i) => named.indexOf(c) !== i);
  if (twice) throw badFile(`names the column ${twice} twice in its header`);
  if (!rows.length) throw badFile('has no rows under its header');
  if (rows.length > IMPORT_MAX_ROWS) throw badFile(`has more than ${IMPORT_MAX_ROWS} rows: split it into several files`);
  return { header: header!, columns, rows };
}

/** What a row sets on its contact: the fields it fills (blank cells set nothing). */
export interface RowContact {
  name?: string;
  email?: string;
  phone_number?: string;
  identifier?: string;
  /** `company_name` (from `company` or `company_name`) and `city`, as Chatwoot's ContactManager sets them. */
  additional_attributes: Record<string, string>;
  /** Every other filled column, by its name (Chatwoot merges `params.except(:identifier, :email, :name, :phone_number)`). */
  custom_attributes: Record<string, string>;
}

export type RowOutcome = { ok: true; contact: RowContact } | { ok: false; errors: string };

/** Chatwoot's `errors.full_messages.join(', ')`: each entry as `Field message` (`Email is not a valid email address`). */
export function fullMessages(errors: ErrorEntry[]): string {
  return errors
    .map((e) => {
      const field = e.field.replace(/\[.*$|\..*$/, '').replace(/_/g, ' ');
      return field ? `${field[0].toUpperCase()}${field.slice(1)} ${e.message}` : e.message;
    })
    .join(', ');
}

/** A row's contact, checked as `PATCH /contacts/{id}` checks one; a phone number without `+` gets one (as Chatwoot). */
export function rowContact(table: ImportTable, row: string[]): RowOutcome {
  if (row.length > table.columns.length) {
    return { ok: false, errors: `Row has ${row.length} fields, the header ${table.columns.length}` };
  }
  const values: Record<string, string> = {};
  table.columns.forEach((c, i) => {
    const value = (row[i] ?? '').trim();
    if (c && value) values[c] = value;
  });
  const additional: Record<string, string> = {};
  const company = values.company ?? values.company_name;
  if (company) additional.company_name = company;
  if (values.city) additional.city = values.city;
  const custom = Object.fromEntries(Object.entries(values).filter(([k]) => !(CONTACT_COLUMNS as readonly string[]).includes(k)));
  const phone = values.phone_number && !values.phone_number.startsWith('+') ? `+${values.phone_number}` : values.phone_number;
  try {
    const checked = parseOrThrow(ContactUpdateSchema, {
      ...(values.name ? { name: values.name } : {}),
      ...(values.email ? { email: values.email } : {}),
      ...(phone ? { phone_number: phone } : {}),
      ...(values.identifier ? { identifier: values.identifier } : {}),
      additional_attributes: additional,
      custom_attributes: custom,
    });
    return {
      ok: true,
      contact: {
        ...(checked.name ? { name: checked.name } : {}),
        ...(checked.email ? { email: checked.email } : {}),
        ...(checked.phone_number ? { phone_number: checked.phone_number } : {}),
        ...(checked.identifier ? { identifier: checked.identifier } : {}),
        additional_attributes: additional,
        custom_attributes: custom,
      },
    };
  } catch (err) {
    if (err instanceof ServiceError) return { ok: false, errors: fullMessages(err.errors) };
    throw err;
  }
}

/** Whether a contact with these fields is listed (Chatwoot's "identifiable": an email, phone number or identifier). */
export const identifiable = (c: Pick<RowContact, 'email' | 'phone_number' | 'identifier'>) => !!(c.email || c.phone_number || c.identifier);

/** Chatwoot's failed-records CSV: the file's header and `errors`, then each refused row as the file has it and its reasons. */
export function failedRecordsCsv(table: ImportTable, failed: FailedRow[]): string {
  const width = table.header.length;
  const lines = [csvLine([...table.header, 'errors'])];
  for (const f of failed) {
    const row = table.rows[f.row] ?? [];
    lines.push(csvLine([...Array.from({ length: width }, (_, i) => row[i] ?? ''), f.errors]));
  }
  return lines.join('');
}
