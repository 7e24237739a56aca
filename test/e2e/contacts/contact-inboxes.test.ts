import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, runtime, seedAccount, unique, type SeededAccount } from '../../support/runtime.ts';
import { ensureContactInbox } from '#shared/domain/contacts/contact-inboxes.ts';
import { findContactInbox, listContactInboxes } from '#shared/db/repositories/contacts.ts';

// Contact inboxes (docs/chatwoot.md#creating-and-updating-a-contact,
// docs/chatwoot.md#contact-inboxes-and-source-ids): a contact's source id per inbox, made on contact create, through
// POST /contacts/{id}/contact_inboxes, or by other areas through ensureContactInbox.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('contact inboxes', () => {
  let s: SeededAccount;
  let other: SeededAccount;
  let api: { id: number; name: string; channel_id: number };
  let hidden: { id: number };
  let theirs: { id: number };

  const newInbox = async (acct: SeededAccount, channel: Record<string, unknown>) => {
    const res = await acct.admin.api.post(`${acct.base}/inboxes`, { name: unique('inbox-'), channel });
    if (res.status !== 200) throw new Error(`create inbox: ${res.status} ${res.text}`);
    return res.body as { id: number; name: string; channel_id: number };
  };

  const create = async (body: Record<string, unknown>) => {
    const res = await s.admin.api.post(`${s.base}/contacts`, body);
    if (res.status !== 200) throw new Error(`create contact: ${res.status} ${res.text}`);
    return res.body.payload.contact as Record<string, any>;
  };

  beforeAll(async () => {
    await runtime();
    [s, other] = await Promise.all([seedAccount(), seedAccount()]);
    api = await newInbox(s, { type: 'api' });
    hidden = await newInbox(s, { type: 'api' });
    theirs = await newInbox(other, { type: 'api' });
    const member = await s.admin.api.post(`${s.base}/inbox_members`, { inbox_id: api.id, user_ids: [s.agent.id] });
    if (member.status !== 200) throw new Error(`inbox member: ${member.status} ${member.text}`);
  });

  it('creates the contact with a contact inbox in one go (generated UUID source id, raw inbox row)', async () => {
    const res = await s.agent.api.post(`${s.base}/contacts`, { name: 'Inboxed', email: `${unique('ib')}@example.com`, inbox_id: api.id });
    expect(res.status).toBe(200);
    const { contact, contact_inbox } = res.body.payload;
    expect(contact_inbox.source_id).toMatch(UUID);
    expect(contact_inbox.inbox).toMatchObject({
      id: api.id,
      account_id: s.accountId,
      name: api.name,
      channel_type: 'Channel::Api',
      channel_id: api.channel_id,
    });
    expect(typeof contact_inbox.inbox.created_at).toBe('string');
    expect(contact.contact_inboxes).toEqual([
      {
        source_id: contact_inbox.source_id,
        inbox: expect.objectContaining({ id: api.id, name: api.name, channel_type: 'Channel::Api', avatar_url: expect.any(String) }),
      },
    ]);
    const shown = await s.admin.api.get(`${s.base}/contacts/${contact.id}`);
    expect(shown.body.payload.contact_inboxes).toEqual(contact.contact_inboxes);
    const listed = await s.admin.api.get(`${s.base}/contacts/search?q=Inboxed`);
    expect(listed.body.payload[0].contact_inboxes).toEqual(contact.contact_inboxes);
  });

  it('uses a given source id; a source id taken in the inbox is 422 and creates nothing', async () => {
    const source = unique('src-');
    const first = await s.admin.api.post(`${s.base}/contacts`, { identifier: unique('a-'), inbox_id: api.id, source_id: source });
    expect(first.body.payload.contact_inbox.source_id).toBe(source);
    const identifier = unique('b-');
    const dup = expectErrorBody(await s.admin.api.post(`${s.base}/contacts`, { identifier, inbox_id: api.id, source_id: source }), 422);
    expect(dup.errors[0]).toMatchObject({ field: 'source_id', code: 'taken' });
    expect((await s.admin.api.get(`${s.base}/contacts/search?q=${identifier}`)).body.meta.count).toBe(0);
    // The same source id in another inbox is another address.
    const elsewhere = await s.admin.api.post(`${s.base}/contacts`, { identifier, inbox_id: hidden.id, source_id: source });
    expect(elsewhere.status).toBe(200);
  });

  it('answers 404 and creates nothing for an inbox of another account or one the agent cannot see', async () => {
    const identifier = unique('c-');
    expectErrorBody(await s.admin.api.post(`${s.base}/contacts`, { identifier, inbox_id: theirs.id }), 404);
    expectErrorBody(await s.agent.api.post(`${s.base}/contacts`, { identifier, inbox_id: hidden.id }), 404);
    expectErrorBody(await s.admin.api.post(`${s.base}/contacts`, { identifier, inbox_id: 999999999 }), 404);
    expect((await s.admin.api.get(`${s.base}/contacts/search?q=${identifier}`)).body.meta.count).toBe(0);
    expect(expectErrorBody(await s.admin.api.post(`${s.base}/contacts`, { identifier, inbox_id: 'x' }), 422).errors[0].field).toBe(
      'inbox_id',
    );
  });

  it('adds contact inboxes to a contact; the same source id again returns the same one', async () => {
    const c = await create({ identifier: unique('d-') });
    const res = await s.agent.api.post(`${s.base}/contacts/${c.id}/contact_inboxes`, { inbox_id: api.id });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      source_id: expect.stringMatching(UUID),
      inbox: { id: api.id, name: api.name, channel_type: 'Channel::Api', channel_id: api.channel_id },
    });
    const again = await s.agent.api.post(`${s.base}/contacts/${c.id}/contact_inboxes`, { inbox_id: api.id, source_id: res.body.source_id });
    expect(again.body.source_id).toBe(res.body.source_id);
    expect(await listContactInboxes(s.accountId, c.id)).toHaveLength(1);

    const taken = await create({ identifier: unique('e-') });
    const err = expectErrorBody(
      await s.admin.api.post(`${s.base}/contacts/${taken.id}/contact_inboxes`, { inbox_id: api.id, source_id: res.body.source_id }),
      422,
    );
    expect(err.errors[0]).toMatchObject({ field: 'source_id', code: 'taken' });

    expectErrorBody(await s.agent.api.post(`${s.base}/contacts/${c.id}/contact_inboxes`, { inbox_id: hidden.id }), 404);
    expectErrorBody(await s.admin.api.post(`${s.base}/contacts/${c.id}/contact_inboxes`, { inbox_id: theirs.id }), 404);
    expectErrorBody(await other.admin.api.post(`${other.base}/contacts/${c.id}/contact_inboxes`, { inbox_id: theirs.id }), 404);
    expect(expectErrorBody(await s.admin.api.post(`${s.base}/contacts/${c.id}/contact_inboxes`, {}), 422).errors[0]).toMatchObject({
      field: 'inbox_id',
      code: 'required',
    });
  });

  it('lists contactable inboxes the caller can see, with the source id to use', async () => {
    const c = await create({ identifier: unique('f-') });
    const ci = (await s.admin.api.post(`${s.base}/contacts/${c.id}/contact_inboxes`, { inbox_id: api.id })).body;
    const admin = await s.admin.api.get(`${s.base}/contacts/${c.id}/contactable_inboxes`);
    expect(admin.status).toBe(200);
    const byInbox = new Map(admin.body.payload.map((p: any) => [p.inbox.id, p.source_id]));
    expect(byInbox.get(api.id)).toBe(ci.source_id);
    expect(byInbox.get(hidden.id)).toMatch(UUID);
    const agent = await s.agent.api.get(`${s.base}/contacts/${c.id}/contactable_inboxes`);
    expect(agent.body.payload.map((p: any) => p.inbox.id)).toEqual([api.id]);
    expectErrorBody(await other.admin.api.get(`${other.base}/contacts/${c.id}/contactable_inboxes`), 404);
  });

  it('frees the source ids of a deleted contact', async () => {
    const source = unique('gone-');
    const c = (await s.admin.api.post(`${s.base}/contacts`, { identifier: unique('g-'), inbox_id: api.id, source_id: source })).body.payload
      .contact;
    expect(await findContactInbox(api.id, source)).toMatchObject({
      contact_id: c.id,
      inbox_id: api.id,
      source_id: source,
      account_id: s.accountId,
    });
    expect((await s.admin.api.delete(`${s.base}/contacts/${c.id}`)).status).toBe(200);
    expect(await findContactInbox(api.id, source)).toBeUndefined();
    expect((await s.admin.api.post(`${s.base}/contacts`, { identifier: unique('h-'), inbox_id: api.id, source_id: source })).status).toBe(
      200,
    );
  });

  describe('ensureContactInbox (for conversations and the public interface)', () => {
    it('returns the existing contact inbox or makes one; unknown contact or inbox is 404', async () => {
      const c = await create({ identifier: unique('i-') });
      const made = await ensureContactInbox(s.accountId, c.id, api.id);
      expect(made).toMatchObject({ account_id: s.accountId, contact_id: c.id, inbox_id: api.id, hmac_verified: false });
      expect(made.source_id).toMatch(UUID);
      expect(made.pubsub_token.length).toBeGreaterThanOrEqual(24);
      expect(await ensureContactInbox(s.accountId, c.id, api.id, made.source_id)).toEqual(made);
      expect(await findContactInbox(api.id, made.source_id)).toEqual(made);
      await expect(ensureContactInbox(s.accountId, 999999999, api.id)).rejects.toMatchObject({ kind: 'not_found' });
      await expect(ensureContactInbox(s.accountId, c.id, theirs.id)).rejects.toMatchObject({ kind: 'not_found' });
      await expect(ensureContactInbox(other.accountId, c.id, theirs.id)).rejects.toMatchObject({ kind: 'not_found' });
    });

    it('uses the email as source id in email inboxes and hands it over when the address moves', async () => {
      const email = await newInbox(s, { type: 'email', email: `${unique('support')}@example.com` });
      const address = `${unique('mover')}@example.com`;
      const a = await create({ email: address });
      const ci = await ensureContactInbox(s.accountId, a.id, email.id);
      expect(ci.source_id).toBe(address);
      const nameOnly = await create({ name: 'No email' });
      await expect(ensureContactInbox(s.accountId, nameOnly.id, email.id)).rejects.toMatchObject({ kind: 'invalid' });

      await s.admin.api.patch(`${s.base}/contacts/${a.id}`, { email: `${unique('new')}@example.com` });
      const b = await create({ email: address });
      const taken = await ensureContactInbox(s.accountId, b.id, email.id);
      expect(taken).toMatchObject({ contact_id: b.id, source_id: address });
      expect((await findContactInbox(email.id, address))?.contact_id).toBe(b.id);
      const old = await listContactInboxes(s.accountId, a.id);
      expect(old).toHaveLength(1);
      expect(old[0].source_id).not.toBe(address);
      expect(old[0].source_id.startsWith(address)).toBe(true);
    });
  });
});
