import { config, pipelineConfig } from '#shared/config.ts';
import { hashToken, randomId } from '#shared/crypto/tokens.ts';
import { findContactIdBy, type UniqueField } from '#shared/db/repositories/contacts.ts';
import { getAccount, getUsers, listAccountUsers } from '#shared/db/repositories/identity.ts';
import {
  completeContactImport,
  getContactImport,
  importRowMarkItem,
  listImportFailures,
  putContactImport,
  RowAlreadyImported,
  saveImportChunk,
} from '#shared/db/repositories/contact-imports.ts';
import { forbidden, isTaken, ServiceError } from '#shared/errors.ts';
import { log } from '#shared/log.ts';
import type { Actor } from '#shared/model/actor.ts';
import type { ContactImportRecord, FailedRow } from '#shared/model/contact-imports.ts';
import type { ContactsImportMailRequest, Mail } from '#shared/model/mail.ts';
import { now } from '#shared/model/time.ts';
import type { FilePart } from '#shared/model/uploads.ts';
import { getObject, putObject } from '#shared/storage/objects.ts';
import { linkExpiry, signedFileUrl } from '#shared/storage/file-urls.ts';
import { requestMail } from '../mail/outbox.ts';
import { contactsImportMail } from '../mail/render.ts';
import {
  failedRecordsCsv,
  fullMessages,
  identifiable,
  readImportFile,
  rowContact,
  type ImportTable,
  type RowContact,
} from './import-csv.ts';
import { createContact, updateContact } from './service.ts';

// `POST /contacts/import` (Chatwoot's ContactsController#import, DataImportJob and DataImport::ContactManager): an
// administrator uploads a CSV; the request checks that it is a CSV this service can read (else 422 at once), stores
// it, writes the import's job item and answers 200. The job item's stream insert brings the first chunk of rows to
// the dispatcher; each chunk creates or updates its rows' contacts through this area's own create and update (so
// uniqueness sentinels, company links and counts, events and webhooks are those of any contact write) and records
// its progress and refused rows on the job item in one transaction, whose change brings the next chunk. After the
// last, the failed-records CSV is stored and the account's administrators mailed the result.
//
// A chunk run again (a crash, a retried queue message) imports the same rows to the same end: a row with an email,
// phone number or identifier finds the contact it made the first time and changes nothing; a row without one
// created its contact with a mark in the same transaction, which the second run finds; the counts move only with
// the transaction that records the chunk, conditioned on where the job was.

/** Where an account's imported files and failed-records files are stored (the account purge removes them). */
export const importsPrefix = (accountId: number) => `imports/contacts/${accountId}/`;
/** How long the mailed failed-records link serves the file. */
export const IMPORT_LINK_TTL_SECONDS = 24 * 3600;
/** A chunk stops taking rows after this long, and records what it did: the next chunk goes on (a new invocation). */
const CHUNK_BUDGET_MS = 4000;
/** The job and its row marks are kept a week (TTL); the stored files two days (the bucket's lifecycle rule). */
const JOB_TTL_SECONDS = 7 * 24 * 3600;

/** Chatwoot's answer to an import without a file. */
export const FILE_BLANK = 'File is blank';

/** Checks and stores the file and starts the import; 422 for no file, or one that is not a CSV of contacts this service reads. */
export async function requestContactsImport(
  accountId: number,
  actor: Actor,
  file: Pick<FilePart, 'data'> | null | undefined,
): Promise<void> {
  if (actor.type !== 'user') throw forbidden();
  if (!file?.data.length) {
    throw new ServiceError('invalid', FILE_BLANK, [{ field: 'import_file', message: "can't be blank", code: 'blank' }], undefined, {
      error: FILE_BLANK,
    });
  }
  const table = readImportFile(file.data);
  const id = randomId();
  const fileKey = `${importsPrefix(accountId)}${id}.csv`;
  await putObject(fileKey, file.data, 'text/csv');
  const t = now();
  await putContactImport({
    id,
    account_id: accountId,
    user_id: actor.user.id,
    to: actor.user.email,
    file_key: fileKey,
    total_records: table.rows.length,
    status: 'processing',
    cursor: 0,
    processed_records: 0,
    non_identifiable_records: 0,
    failed_records: 0,
    created_at: t,
    expires_at: t + JOB_TTL_SECONDS,
  });
}

type RowResult = { ok: true; identifiable: boolean } | { ok: false; errors: string };

const refusal = (err: unknown): string => {
  if (err instanceof ServiceError) return fullMessages(err.errors) || err.description;
  throw err;
};

/** The contact a row names (Chatwoot's order: identifier, then email, then phone number). */
async function existingContact(accountId: number, c: RowContact): Promise<number | undefined> {
  for (const field of ['identifier', 'email', 'phone_number'] as UniqueField[]) {
    const value = c[field];
    if (!value) continue;
    const id = await findContactIdBy(accountId, field, value);
    if (id !== undefined) return id;
  }
  return undefined;
}

/** One row: its contact updated (given fields replace, attributes merge) or created; or why not. */
async function importRow(job: ContactImportRecord, index: number, c: RowContact): Promise<RowResult> {
  const accountId = job.account_id;
  const fields = {
    ...c,
    additional_attributes: Object.keys(c.additional_attributes).length ? c.additional_attributes : undefined,
    custom_attributes: Object.keys(c.custom_attributes).length ? c.custom_attributes : undefined,
  };
  for (let attempt = 0; ; attempt++) {
    const id = await existingContact(accountId, c);
    try {
      if (id !== undefined) {
        await updateContact(accountId, id, fields);
        return { ok: true, identifiable: true };
      }
      const keyless = !identifiable(c);
      await createContact(accountId, fields, undefined, keyless ? { extra: [importRowMarkItem(job, index)] } : {});
      return { ok: true, identifiable: !keyless };
    } catch (err) {
      // Made by this row in an earlier run of its chunk.
      if (err instanceof RowAlreadyImported) return { ok: true, identifiable: false };
      // Created by someone else between the look-up and the write: find it again and update it.
      if (id === undefined && attempt === 0 && isTaken(err)) continue;
      return { ok: false, errors: refusal(err) };
    }
  }
}

/** The last file this container read: a job's next chunks mostly reach the same container, which then reads it once. */
let lastTable: { key: string; table: ImportTable } | undefined;

/** The job's file, read as the request read it. */
async function tableOf(job: ContactImportRecord): Promise<ImportTable> {
  if (lastTable?.key !== job.file_key) lastTable = { key: job.file_key, table: readImportFile(await getObject(job.file_key)) };
  return lastTable.table;
}

/**
 * The pipeline's part: the next chunk of the job's rows, or, once every row is done, the result. Nothing for a job
 * that is gone (its account deleted) or finished; a job of a suspended account stops where it is (logged).
 */
export async function importChunk(accountId: number, id: string): Promise<void> {
  const job = await getContactImport(accountId, id);
  if (job?.status !== 'processing') return;
  const account = await getAccount(accountId);
  if (!account || account.status === 'suspended') {
    log.warn('contacts import not continued: its account is gone or suspended', { accountId, importId: id });
    return;
  }
  const table = await tableOf(job);
  if (job.cursor >= job.total_records) return finishImport(job, table);
  const last = Math.min(job.total_records, job.cursor + pipelineConfig().contactImportChunkRows);
  const started = Date.now();
  let processed = 0;
  let nonIdentifiable = 0;
  const failed: FailedRow[] = [];
  let end = job.cursor;
  for (let row = job.cursor; row < last; row++) {
    // Only as long as the time budget lasts (the dispatcher's batch has 10 s in all); at least one row.
    if (row > job.cursor && Date.now() - started >= CHUNK_BUDGET_MS) break;
    const mapped = rowContact(table, table.rows[row]);
    const result = mapped.ok ? await importRow(job, row, mapped.contact) : mapped;
    if (!result.ok) failed.push({ row, errors: result.errors });
    else {
      processed++;
      if (!result.identifiable) nonIdentifiable++;
    }
    end = row + 1;
  }
  if (!(await saveImportChunk(job, { cursor: end, processed, nonIdentifiable, failed }))) {
    log.info('contacts import chunk already recorded', { accountId, importId: id, cursor: job.cursor });
  }
}

/** The failed-records CSV stored, the result mail asked for (once: named by the job), the job completed. */
async function finishImport(job: ContactImportRecord, table: ImportTable): Promise<void> {
  let failedKey: string | undefined;
  if (job.failed_records > 0) {
    failedKey = `${importsPrefix(job.account_id)}${job.id}-failed.csv`;
    const failed = await listImportFailures(job.account_id, job.id);
    await putObject(failedKey, Buffer.from(failedRecordsCsv(table, failed), 'utf8'), 'text/csv');
  }
  // Chatwoot mails the account's administrators (and the one who imported, should they no longer be one).
  const admins = (await listAccountUsers(job.account_id)).filter((m) => m.role === 'administrator');
  const emails = (await getUsers(admins.map((m) => m.user_id))).flatMap((u) => (u ? [u.email] : []));
  for (const to of new Set([job.to, ...emails])) {
    await requestMail(
      {
        kind: 'contacts_import',
        account_id: job.account_id,
        to,
        total_records: job.total_records,
        processed_records: job.processed_records,
        non_identifiable_records: job.non_identifiable_records,
        failed_records: job.failed_records,
        ...(failedKey ? { failed_key: failedKey } : {}),
      },
      // Named by the import and the recipient: a finish run twice mails each once.
      `import-${job.account_id}-${job.id}-${hashToken(to.toLowerCase()).slice(0, 32)}`,
    );
  }
  await completeContactImport(job, failedKey);
}

/** The result mail: the counts, and the failed records' link (else the contacts page), as Chatwoot's. */
export function composeContactsImport(r: ContactsImportMailRequest): Mail {
  const url = r.failed_key
    ? signedFileUrl(
        r.failed_key,
        `${new Date(r.created_at * 1000).toISOString().slice(0, 10).replace(/-/g, '')}_contacts.csv`,
        linkExpiry(Date.now(), IMPORT_LINK_TTL_SECONDS),
      )
    : `${config().frontendUrl}/app/accounts/${r.account_id}/contacts`;
  return contactsImportMail({ ...r, url });
}
