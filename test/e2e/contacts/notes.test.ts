import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, runtime, seedAccount, unique, type SeededAccount } from '../../support/runtime.ts';

// Contact notes (Chatwoot's Contacts::NotesController, the n8n node's calls): any member writes them, the author
// rides along as agent JSON, newest first, and they go with their contact (delete, merge).

describe('contact notes', () => {
  let s: SeededAccount;
  let other: SeededAccount;

  const newContact = async (acct: SeededAccount) => {
    const res = await acct.admin.api.post(`${acct.base}/contacts`, { name: 'Noted', email: `${unique('note')}@example.com` });
    if (res.status !== 200) throw new Error(`create contact: ${res.status} ${res.text}`);
    return res.body.payload.contact.id as number;
  };

  beforeAll(async () => {
    await runtime();
    [s, other] = await Promise.all([seedAccount(), seedAccount()]);
  });

  it('creates (wrapped or top level), lists newest first with the author, updates and deletes', async () => {
    const id = await newContact(s);
    const first = await s.agent.api.post(`${s.base}/contacts/${id}/notes`, { note: { content: 'Called, wants a demo' } });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ content: 'Called, wants a demo', account_id: s.accountId, contact_id: id });
    expect(typeof first.body.id).toBe('number');
    expect(typeof first.body.created_at).toBe('number');
    expect(first.body.updated_at).toBe(first.body.created_at);
    expect(first.body.user).toMatchObject({ id: s.agent.id, role: 'agent', account_id: s.accountId });
    expect(typeof first.body.user.email).toBe('string');

    const second = await s.admin.api.post(`${s.base}/contacts/${id}/notes`, { content: 'Demo booked' });
    expect(second.status).toBe(200);
    expect(second.body.user.id).toBe(s.admin.id);

    const list = await s.agent.api.get(`${s.base}/contacts/${id}/notes`);
    expect(list.status).toBe(200);
    expect(list.body.map((n: { id: number }) => n.id)).toEqual([second.body.id, first.body.id]);
    expect(list.body[1].user.id).toBe(s.agent.id);

    // Another member may edit it; the author stays the writer.
    const edited = await s.admin.api.patch(`${s.base}/contacts/${id}/notes/${first.body.id}`, { note: { content: 'Called twice' } });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ id: first.body.id, content: 'Called twice', user: { id: s.agent.id } });

    const gone = await s.agent.api.delete(`${s.base}/contacts/${id}/notes/${second.body.id}`);
    expect(gone.status).toBe(200);
    const after = await s.agent.api.get(`${s.base}/contacts/${id}/notes`);
    expect(after.body.map((n: { id: number }) => n.id)).toEqual([first.body.id]);
    expectErrorBody(await s.agent.api.delete(`${s.base}/contacts/${id}/notes/${second.body.id}`), 404);
  });

  it('answers 422 for a blank or missing content, 404 for unknown contacts, notes and other accounts’ ones', async () => {
    const id = await newContact(s);
    expectErrorBody(await s.agent.api.post(`${s.base}/contacts/${id}/notes`, { content: '   ' }), 422);
    expectErrorBody(await s.agent.api.post(`${s.base}/contacts/${id}/notes`, {}), 422);
    // A number is text as Rails casts it (docs/chatwoot.md#rails-parameters); an object is not.
    expect((await s.agent.api.post(`${s.base}/contacts/${id}/notes`, { content: 7 })).body.content).toBe('7');
    expectErrorBody(await s.agent.api.post(`${s.base}/contacts/${id}/notes`, { content: { text: 'x' } }), 422);
    expectErrorBody(await s.agent.api.post(`${s.base}/contacts/999999999/notes`, { content: 'x' }), 404);
    expectErrorBody(await s.agent.api.get(`${s.base}/contacts/999999999/notes`), 404);
    expectErrorBody(await s.agent.api.patch(`${s.base}/contacts/${id}/notes/999999999`, { content: 'x' }), 404);

    const theirs = await newContact(other);
    const note = await other.admin.api.post(`${other.base}/contacts/${theirs}/notes`, { content: 'private' });
    expect(note.status).toBe(200);
    expectErrorBody(await s.admin.api.get(`${s.base}/contacts/${theirs}/notes`), 404);
    expectErrorBody(await s.admin.api.delete(`${s.base}/contacts/${theirs}/notes/${note.body.id}`), 404);
    // Another account's user on this account's path: the account is not theirs to see.
    expectErrorBody(await other.admin.api.get(`${s.base}/contacts/${id}/notes`), 404);
  });

  it('goes with its contact: deleted with it, moved to the base by a merge', async () => {
    const doomed = await newContact(s);
    await s.agent.api.post(`${s.base}/contacts/${doomed}/notes`, { content: 'soon gone' });
    expect((await s.admin.api.delete(`${s.base}/contacts/${doomed}`)).status).toBe(200);
    expectErrorBody(await s.agent.api.get(`${s.base}/contacts/${doomed}/notes`), 404);
    const { getContactNote, listContactNotes } = await import('#shared/db/repositories/contact-notes.ts');
    expect(await listContactNotes(s.accountId, doomed)).toEqual([]);

    const base = await newContact(s);
    const mergee = await newContact(s);
    const kept = await s.agent.api.post(`${s.base}/contacts/${mergee}/notes`, { content: 'from the mergee' });
    const merged = await s.admin.api.post(`${s.base}/actions/contact_merge`, { base_contact_id: base, mergee_contact_id: mergee });
    expect(merged.status).toBe(200);
    const notes = await s.agent.api.get(`${s.base}/contacts/${base}/notes`);
    expect(notes.body).toEqual([expect.objectContaining({ id: kept.body.id, contact_id: base, content: 'from the mergee' })]);
    expect(await getContactNote(s.accountId, mergee, kept.body.id, true)).toBeUndefined();
  });
});
