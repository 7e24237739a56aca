import * as keys from '../keys.ts';
import type { ContactNoteRecord } from '#shared/model/contacts.ts';
import { batchWriteAll, getItem, queryPrefix, record } from './common.ts';
import { versionedDel, versionedPut } from './versioned.ts';
import { del, put, transact } from '../transact.ts';
import { contactExists } from './contacts.ts';

// Access patterns of contact notes: one partition per contact, notes by id.

/** One note of a contact. */
export const getContactNote = (accountId: number, contactId: number, id: number, consistent = false) =>
  getItem<ContactNoteRecord>(keys.contactNote(accountId, contactId, id), consistent);

/** A contact's notes, newest first (ids increase with time). */
export async function listContactNotes(accountId: number, contactId: number): Promise<ContactNoteRecord[]> {
  const p = keys.contactNotesOf(accountId, contactId);
  return (await queryPrefix({ pk: p.pk }, p.skPrefix, { forward: false })).map((i) => record<ContactNoteRecord>(i)!);
}

const item = (n: ContactNoteRecord) => ({ ...keys.contactNote(n.account_id, n.contact_id, n.id), type: 'contact_note', ...n });

/** A new note, only while its contact exists (a note never outlives a contact deleted meanwhile). */
export const createContactNote = (n: ContactNoteRecord) => transact([versionedPut(item(n)), contactExists(n.account_id, n.contact_id)]);

/** The next version of a note, conditioned on the version read. */
export const updateContactNote = (n: ContactNoteRecord, beforeVersion: number) => transact([versionedPut(item(n), beforeVersion)]);

export const deleteContactNote = (n: ContactNoteRecord) =>
  transact([versionedDel(keys.contactNote(n.account_id, n.contact_id, n.id), n.version)]);

/** Removes every note of a contact (the contact is gone). */
export async function deleteContactNotes(accountId: number, contactId: number): Promise<void> {
  const p = keys.contactNotesOf(accountId, contactId);
  const items = await queryPrefix({ pk: p.pk }, p.skPrefix);
  await batchWriteAll(items.map((i) => ({ DeleteRequest: { Key: { pk: String(i.pk), sk: String(i.sk) } } })));
}

/** Moves a note to another contact of the account (a merge), keeping its id: the copy and the removal in one transaction. */
export const moveContactNote = (n: ContactNoteRecord, toContactId: number) =>
  transact([{ item: put(item({ ...n, contact_id: toContactId })) }, { item: del(keys.contactNote(n.account_id, n.contact_id, n.id)) }]);
