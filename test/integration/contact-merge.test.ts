import { beforeAll, describe, expect, it } from 'vitest';
import { mergeContacts, type MergeStep } from '#shared/domain/contacts/merge.ts';
import { expectErrorBody, runtime, seedAccount, unique, type SeededAccount } from '../support/runtime.ts';
import { anonymous, apiInbox, contactPath, ok, type ApiInbox } from '../e2e/public/fixtures.ts';

// A merge interrupted after any step leaves two usable contacts, counts exact, and the same merge
// called again (over HTTP, as a client retries) completes it. Failures are injected between steps.

describe('contact merge interrupted', () => {
  let s: SeededAccount;
  beforeAll(async () => {
    await runtime();
    s = await seedAccount();
  });

  const post = async (path: string, body: unknown) => ok(await s.admin.api.post(`${s.base}${path}`, body), path);
  const get = async (path: string) => ok(await s.admin.api.get(`${s.base}${path}`), path);

  /** A base contact, and a mergee with a contact inbox and a conversation in each of two API inboxes. */
  async function pair() {
    const inboxes: ApiInbox[] = [await apiInbox(s), await apiInbox(s)];
    const baseId = (await post('/contacts', { name: 'Base', email: `${unique('base')}@fault.test` })).payload.contact.id as number;
    const mergeeId = (
      await post('/contacts', { name: 'Mergee', phone_number: `+1202${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}` })
    ).payload.contact.id as number;
    const sources: string[] = [];
    const conversations: number[] = [];
    for (const inbox of inboxes) {
      const ci = await post(`/contacts/${mergeeId}/contact_inboxes`, { inbox_id: inbox.id });
      sources.push(ci.source_id);
      const c = await post('/conversations', { inbox_id: inbox.id, contact_id: mergeeId, source_id: ci.source_id });
      await post(`/conversations/${c.id}/messages`, { content: 'hi', message_type: 'incoming' });
      conversations.push(c.id);
    }
    return { inboxes, baseId, mergeeId, sources, conversations };
  }

  const failAt = (step: MergeStep, nth = 1) => {
    let seen = 0;
    return {
      afterStep: (s: MergeStep) => {
        if (s === step && ++seen === nth) throw new Error(`injected failure after ${step} #${nth}`);
      },
    };
  };

  for (const [step, nth] of [
    ['contact_inbox', 1],
    ['conversation', 1],
    ['conversation', 2],
  ] as [MergeStep, number][]) {
    it(`after ${step} #${nth}: both contacts work, then a retry completes the merge`, async () => {
      const p = await pair();
      const metaBefore = await get('/conversations/meta?status=all');
      await expect(mergeContacts(s.accountId, p.baseId, p.mergeeId, failAt(step, nth))).rejects.toThrow(/injected failure/);

      // Both contacts are still there and each shows what it has; every contact inbox and conversation belongs to one of them.
      const base = (await get(`/contacts/${p.baseId}`)).payload;
      const mergee = (await get(`/contacts/${p.mergeeId}`)).payload;
      const owners = [...base.contact_inboxes, ...mergee.contact_inboxes].map((ci: { source_id: string }) => ci.source_id).sort();
      expect(owners).toEqual([...p.sources].sort());
      const api = await anonymous();
      for (let i = 0; i < 2; i++) {
        const shown = ok(await api.get(contactPath(p.inboxes[i], p.sources[i])), 'public show');
        expect([p.baseId, p.mergeeId]).toContain(shown.id);
        const conv = await get(`/conversations/${p.conversations[i]}`);
        expect([p.baseId, p.mergeeId]).toContain(conv.meta.sender.id);
      }
      const listed = [
        ...(await get(`/contacts/${p.baseId}/conversations`)).payload,
        ...(await get(`/contacts/${p.mergeeId}/conversations`)).payload,
      ].map((c: { id: number }) => c.id);
      expect(listed.sort()).toEqual([...p.conversations].sort());
      expect(await get('/conversations/meta?status=all')).toEqual(metaBefore);

      // The client retries the same merge.
      const done = await post('/actions/contact_merge', { base_contact_id: p.baseId, mergee_contact_id: p.mergeeId });
      expect(done).toMatchObject({ id: p.baseId, name: 'Base', email: expect.any(String), phone_number: expect.stringMatching(/^\+1202/) });
      expectErrorBody(await s.admin.api.get(`${s.base}/contacts/${p.mergeeId}`), 404);
      const after = (await get(`/contacts/${p.baseId}`)).payload;
      expect(after.contact_inboxes.map((ci: { source_id: string }) => ci.source_id).sort()).toEqual([...p.sources].sort());
      for (const id of p.conversations) expect((await get(`/conversations/${id}`)).meta.sender.id).toBe(p.baseId);
      expect((await get(`/contacts/${p.baseId}/conversations`)).payload.map((c: { id: number }) => c.id).sort()).toEqual(
        [...p.conversations].sort(),
      );
      expect(await get('/conversations/meta?status=all')).toEqual(metaBefore);
    });
  }
});
