import { beforeAll, describe, expect, it } from 'vitest';
import { request as chatwootRequest } from '@figuro/chatwoot-sdk/dist/core/request.js';
import { expectErrorBody, fieldsOf, runtime, seedAccount, unique, type SeededAccount } from '../../support/runtime.ts';
import { anonymous, apiInbox, contactPath, ok, publicContact } from '../public/fixtures.ts';

// POST actions/contact_merge (Chatwoot's ContactMergeAction) with EvolutionAPI's call, and the public
// contact update that merges (ContactIdentifyAction): what moves, what the base keeps, that counts and
// listings stay exact, and the refusals.

describe('contact merge', () => {
  let s: SeededAccount;
  let base: string;
  const post = async (path: string, body: unknown) => ok(await s.admin.api.post(`${s.base}${path}`, body), path);
  const get = async (path: string) => ok(await s.admin.api.get(`${s.base}${path}`), path);

  beforeAll(async () => {
    base = (await runtime()).baseUrl;
    s = await seedAccount();
  });

  it('moves the mergee’s contact inboxes, conversations, messages and labels to the base, fills the base’s blanks, deletes the mergee', async () => {
    const inbox = await apiInbox(s);
    const tail = String(Math.floor(Math.random() * 1e8)).padStart(8, '0');
    const keep = await post('/contacts', {
      name: 'Maria Silva',
      phone_number: `+55119${tail}`,
      custom_attributes: { plan: 'gold', shared: 'base' },
      additional_attributes: { city: 'São Paulo' },
    });
    const dup = await post('/contacts', {
      inbox_id: inbox.id,
      name: 'Maria',
      phone_number: `+5511${tail}`,
      email: `${unique('maria')}@merge.test`,
      identifier: `5511${tail}@s.whatsapp.net`,
      custom_attributes: { shared: 'mergee', since: 2020 },
      additional_attributes: { city: 'Rio', company_name: 'Acme' },
    });
    const baseId = keep.payload.contact.id as number;
    const mergeeId = dup.payload.contact.id as number;
    const sourceId = dup.payload.contact_inbox.source_id as string;
    await post(`/contacts/${mergeeId}/labels`, { labels: ['whatsapp'] });
    await post(`/contacts/${baseId}/labels`, { labels: ['customer'] });
    const conversation = await post('/conversations', { inbox_id: inbox.id, contact_id: mergeeId, source_id: sourceId });
    const incoming = await post(`/conversations/${conversation.id}/messages`, { content: 'Oi', message_type: 'incoming' });
    expect(incoming.sender).toMatchObject({ id: mergeeId, type: 'contact' });
    const metaBefore = await get('/conversations/meta?status=all');
    const listedBefore = (await get('/contacts')).meta.count;

    // EvolutionAPI's mergeBrazilianContacts: base = the 14-character phone, mergee = the 13-character one.
    const contacts = [keep.payload.contact, dup.payload.contact];
    const merged = await chatwootRequest<any>(
      { basePath: base, with_credentials: true, credentials: 'include', token: s.admin.token } as any,
      {
        method: 'POST',
        url: `/api/v1/accounts/${s.accountId}/actions/contact_merge`,
        body: {
          base_contact_id: contacts.find((c) => c.phone_number.length === 14)?.id,
          mergee_contact_id: contacts.find((c) => c.phone_number.length === 13)?.id,
        },
      },
    );
    // The base contact's JSON (no wrapper), its own values kept, the mergee's where it had none.
    expect(merged).toMatchObject({
      id: baseId,
      name: 'Maria Silva',
      phone_number: `+55119${tail}`,
      email: dup.payload.contact.email,
      identifier: `5511${tail}@s.whatsapp.net`,
      custom_attributes: { plan: 'gold', shared: 'base', since: 2020 },
      additional_attributes: { city: 'São Paulo', company_name: 'Acme' },
    });
    expectErrorBody(await s.admin.api.get(`${s.base}/contacts/${mergeeId}`), 404);
    const shown = (await get(`/contacts/${baseId}`)).payload;
    expect(shown.contact_inboxes.map((ci: { source_id: string }) => ci.source_id)).toEqual([sourceId]);
    expect((await get(`/contacts/${baseId}/labels`)).payload.sort()).toEqual(['customer', 'whatsapp']);
    // The conversation, its messages and the contact's conversation list follow the base.
    const conv = await get(`/conversations/${conversation.id}`);
    expect(conv.meta.sender.id).toBe(baseId);
    const messages = (await get(`/conversations/${conversation.id}/messages`)).payload;
    expect(messages.find((m: { id: number }) => m.id === incoming.id).sender).toMatchObject({ id: baseId, type: 'contact' });
    expect((await get(`/contacts/${baseId}/conversations`)).payload.map((c: { id: number }) => c.id)).toEqual([conversation.id]);
    // Counters and listings stay exact: same conversation counts, one contact fewer, the mergee's
    // email and identifier now find the base (sentinels moved), its old phone is free again.
    expect(await get('/conversations/meta?status=all')).toEqual(metaBefore);
    expect((await get('/contacts')).meta.count).toBe(listedBefore - 1);
    const byEmail = await post('/contacts/filter', {
      payload: [{ attribute_key: 'email', filter_operator: 'equal_to', values: [dup.payload.contact.email] }],
    });
    expect(byEmail.payload.map((c: { id: number }) => c.id)).toEqual([baseId]);
    expect(
      (await get(`/contacts/search?q=${encodeURIComponent(`5511${tail}@s.whatsapp`)}`)).payload.map((c: { id: number }) => c.id),
    ).toEqual([baseId]);
    const reuse = await post('/contacts', { name: 'New owner', phone_number: `+5511${tail}` });
    expect(reuse.payload.contact.id).not.toBe(mergeeId);
    const taken = expectErrorBody(await s.admin.api.post(`${s.base}/contacts`, { name: 'Dup', email: dup.payload.contact.email }), 422);
    expect(fieldsOf(taken)).toEqual({ email: 'taken' });
    // The public end client of the moved contact inbox is now the base contact.
    expect(ok(await (await anonymous()).get(contactPath(inbox, sourceId)), 'public show').id).toBe(baseId);
  });

  it('agents may merge; same id twice is 422; a contact of another account is 404 and nothing changes', async () => {
    const a = (await post('/contacts', { name: 'A', email: `${unique('a')}@merge.test` })).payload.contact.id;
    const b = (await post('/contacts', { name: 'B', email: `${unique('b')}@merge.test` })).payload.contact.id;
    const same = expectErrorBody(
      await s.agent.api.post(`${s.base}/actions/contact_merge`, { base_contact_id: a, mergee_contact_id: a }),
      422,
    );
    expect(fieldsOf(same)).toEqual({ mergee_contact_id: 'invalid' });
    const other = await seedAccount();
    const foreign = ok(await other.admin.api.post(`${other.base}/contacts`, { name: 'F', email: `${unique('f')}@merge.test` }), 'foreign')
      .payload.contact.id;
    expectErrorBody(await s.admin.api.post(`${s.base}/actions/contact_merge`, { base_contact_id: a, mergee_contact_id: foreign }), 404);
    expectErrorBody(await s.admin.api.post(`${s.base}/actions/contact_merge`, { base_contact_id: foreign, mergee_contact_id: a }), 404);
    expectErrorBody(await s.admin.api.post(`${other.base}/actions/contact_merge`, { base_contact_id: a, mergee_contact_id: b }), 404);
    expect(ok(await other.admin.api.get(`${other.base}/contacts/${foreign}`), 'foreign kept').payload.id).toBe(foreign);
    expect(
      fieldsOf(expectErrorBody(await s.admin.api.post(`${s.base}/actions/contact_merge`, { base_contact_id: a }), 422)),
    ).toHaveProperty('mergee_contact_id');
    const byAgent = ok(
      await s.agent.api.post(`${s.base}/actions/contact_merge`, { base_contact_id: String(a), mergee_contact_id: String(b) }),
      'agent merge',
    );
    expect(byAgent.id).toBe(a);
    expectErrorBody(await s.admin.api.get(`${s.base}/contacts/${b}`), 404);
  });

  it('public contact update with another contact’s email or phone folds the caller’s contact into that one', async () => {
    const inbox = await apiInbox(s);
    const api = await anonymous();
    const holder = await post('/contacts', {
      name: 'Known customer',
      email: `${unique('k')}@merge.test`,
      custom_attributes: { tier: 'gold' },
    });
    const holderId = holder.payload.contact.id as number;
    const visitor = await publicContact(api, inbox, { name: 'Visitor', custom_attributes: { color: 'blue' } });
    const conversation = ok(await api.post(`${contactPath(inbox, visitor.source_id)}/conversations`, {}), 'public conversation');
    const row = ok(
      await api.patch(contactPath(inbox, visitor.source_id), { email: holder.payload.contact.email, name: 'Known Customer Jr' }),
      'public update',
    );
    expect(row).toMatchObject({
      id: holderId,
      email: holder.payload.contact.email,
      name: 'Known Customer Jr',
      custom_attributes: { tier: 'gold', color: 'blue' },
    });
    expectErrorBody(await s.admin.api.get(`${s.base}/contacts/${visitor.id}`), 404);
    expect((await get(`/conversations/${conversation.id}`)).meta.sender.id).toBe(holderId);
    // The same client keeps working on its contact identifier, now as the known contact.
    const again = ok(await api.get(contactPath(inbox, visitor.source_id)), 'public show');
    expect(again).toMatchObject({ id: holderId, source_id: visitor.source_id });
    expect(ok(await api.get(`${contactPath(inbox, visitor.source_id)}/conversations`), 'list').map((c: { id: number }) => c.id)).toContain(
      conversation.id,
    );
    // A phone number works the same way.
    const phoneHolder = await post('/contacts', {
      name: 'Phone holder',
      phone_number: `+1415${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`,
    });
    const second = await publicContact(api, inbox, { name: 'Second visitor' });
    const byPhone = ok(
      await api.patch(contactPath(inbox, second.source_id), { phone_number: phoneHolder.payload.contact.phone_number }),
      'by phone',
    );
    expect(byPhone.id).toBe(phoneHolder.payload.contact.id);
  });
});
