import { nextId } from '#shared/db/ids.ts';
import * as repo from '#shared/db/repositories/contact-notes.ts';
import { getContact } from '#shared/db/repositories/contacts.ts';
import { retryStale } from '#shared/db/repositories/versioned.ts';
import { forbidden, notFound } from '#shared/errors.ts';
import type { Actor } from '#shared/model/actor.ts';
import type { ContactNoteRecord } from '#shared/model/contacts.ts';
import { now } from '#shared/model/time.ts';
import { agentsJson } from '../agents/view.ts';
import type { ContactNoteInput } from './schemas.ts';

// Contact notes (Chatwoot's Contacts::NotesController): any member of the account, who may see every contact,
// keeps notes on a contact; the author is the user who wrote it. They go with the contact.

async function requireContact(accountId: number, contactId: number, consistent = false) {
  if (!(await getContact(accountId, contactId, consistent))) throw notFound('Contact');
}

async function requireNote(accountId: number, contactId: number, id: number, consistent = false) {
  const n = await repo.getContactNote(accountId, contactId, id, consistent);
  if (!n) throw notFound('Note');
  return n;
}

const authorOf = (actor: Actor) => {
  if (actor.type !== 'user') throw forbidden();
  return actor.user.id;
};

/** Chatwoot's note JSON: Unix-second timestamps and the author as agent JSON (left out once they left the account). */
async function notesJson(accountId: number, notes: ContactNoteRecord[]) {
  const authors = new Map(
    (
      await agentsJson(
        accountId,
        notes.map((n) => n.user_id),
      )
    ).map((a) => [a.id, a]),
  );
  return notes.map((n) => {
    const user = authors.get(n.user_id);
    return {
      id: n.id,
      content: n.content,
      account_id: n.account_id,
      contact_id: n.contact_id,
      ...(user ? { user } : {}),
      created_at: n.created_at,
      updated_at: n.updated_at,
    };
  });
}

const noteJson = async (n: ContactNoteRecord) => (await notesJson(n.account_id, [n]))[0];

/** `GET /contacts/{id}/notes`: a bare array, newest first. */
export async function listContactNotes(accountId: number, contactId: number) {
  const [, notes] = await Promise.all([requireContact(accountId, contactId), repo.listContactNotes(accountId, contactId)]);
  return notesJson(accountId, notes);
}

export async function createContactNote(accountId: number, contactId: number, actor: Actor, input: ContactNoteInput) {
  const userId = authorOf(actor);
  const t = now();
  const note: ContactNoteRecord = {
    id: await nextId('note'),
    account_id: accountId,
    contact_id: contactId,
    content: input.content,
    user_id: userId,
    created_at: t,
    updated_at: t,
    version: 1,
  };
  // The transaction checks that the contact exists; when it does not, the retry's consistent read answers 404.
  await retryStale(async (consistent) => {
    if (consistent) await requireContact(accountId, contactId, true);
    await repo.createContactNote(note);
  });
  return noteJson(note);
}

export async function updateContactNote(accountId: number, contactId: number, id: number, actor: Actor, input: ContactNoteInput) {
  authorOf(actor);
  return retryStale(async (consistent) => {
    const before = await requireNote(accountId, contactId, id, consistent);
    const after = { ...before, content: input.content, updated_at: now(), version: before.version + 1 };
    await repo.updateContactNote(after, before.version);
    return noteJson(after);
  });
}

export async function deleteContactNote(accountId: number, contactId: number, id: number): Promise<void> {
  await retryStale(async (consistent) => repo.deleteContactNote(await requireNote(accountId, contactId, id, consistent)));
}
