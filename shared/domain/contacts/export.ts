import { getContacts, listContactListings } from '#shared/db/repositories/contacts.ts';
import { forbidden } from '#shared/errors.ts';
import type { Actor } from '#shared/model/actor.ts';
import type { ContactsExportMailRequest, Mail } from '#shared/model/mail.ts';
import { putObject } from '#shared/storage/objects.ts';
import { linkExpiry, signedFileUrl } from '#shared/storage/file-urls.ts';
import { contactConditions, matchingContactIds } from '../filters/service.ts';
import { requestMail } from '../mail/outbox.ts';
import { contactsExportMail } from '../mail/render.ts';
import { csvHeader, csvRow, exportColumns } from './export-csv.ts';

// `POST /contacts/export` (Chatwoot's ContactsController#export and Account::ContactsExportJob): an administrator
// asks, the request is answered at once, and the events pipeline makes the CSV of the contacts the filter picks,
// stores it and mails the asker a link to it that expires.

/** How long the mailed link serves the file. */
export const EXPORT_LINK_TTL_SECONDS = 24 * 3600;
/** Where an account's exports are stored (the account purge removes them). */
export const exportsPrefix = (accountId: number) => `exports/contacts/${accountId}/`;

export interface ExportInput {
  column_names?: string[];
  payload?: unknown[];
  label?: string;
}

/** Checks the filter now (a bad one is 422, as `POST /contacts/filter`) and queues the export. */
export async function requestContactsExport(accountId: number, actor: Actor, input: ExportInput): Promise<void> {
  if (actor.type !== 'user') throw forbidden();
  const payload = input.payload?.length ? input.payload : undefined;
  if (payload) await contactConditions(accountId, { payload });
  await requestMail({
    kind: 'contacts_export',
    account_id: accountId,
    to: actor.user.email,
    columns: exportColumns(input.column_names),
    ...(payload ? { payload } : {}),
    ...(!payload && input.label ? { label: input.label } : {}),
  });
}

/** The listed contacts an export covers, by id. */
async function exportedIds(r: ContactsExportMailRequest): Promise<number[]> {
  if (r.payload?.length) return matchingContactIds(r.account_id, await contactConditions(r.account_id, { payload: r.payload }));
  const label = r.label?.trim().toLowerCase();
  const rows = await listContactListings(r.account_id);
  return rows.filter((l) => !label || l.labels.some((x) => x.toLowerCase() === label)).map((l) => l.id);
}

/** The pipeline's part: the CSV, stored, and the mail with its link. */
export async function composeContactsExport(r: ContactsExportMailRequest): Promise<Mail> {
  const ids = await exportedIds(r);
  const parts = [csvHeader(r.columns)];
  for (let i = 0; i < ids.length; i += 100) {
    for (const c of await getContacts(r.account_id, ids.slice(i, i + 100))) if (c) parts.push(csvRow(c, r.columns));
  }
  const key = `${exportsPrefix(r.account_id)}${r.id}.csv`;
  await putObject(key, Buffer.from(parts.join(''), 'utf8'), 'text/csv');
  const url = signedFileUrl(key, 'contacts.csv', linkExpiry(Date.now(), EXPORT_LINK_TTL_SECONDS));
  return contactsExportMail({ id: r.id, to: r.to, url });
}
