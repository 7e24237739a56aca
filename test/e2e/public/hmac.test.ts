import { createHmac } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, type Client } from '../../support/runtime.ts';
import {
  anonymous,
  apiInbox,
  contactPath,
  conversationPath,
  inboxPath,
  ok,
  publicContact,
  publicConversation,
  seedAccount,
  unique,
  type ApiInbox,
  type SeededAccount,
} from './fixtures.ts';

// docs/chatwoot.md#public-contacts: HMAC identity validation on the contacts routes. The hash is the hex HMAC-SHA256
// of the identifier under the inbox's hmac_token; a wrong or missing one (when mandatory) is 401 with the error body
// (Chatwoot: 500). A verified contact inbox sees all of its contact's conversations.

const sign = (inbox: ApiInbox, identifier: string) => createHmac('sha256', inbox.hmac_token).update(identifier).digest('hex');

describe('public interface: HMAC identity validation', () => {
  let s: SeededAccount;
  let api: Client;
  let strict: ApiInbox;
  let open: ApiInbox;

  beforeAll(async () => {
    s = await seedAccount();
    api = await anonymous();
    [strict, open] = await Promise.all([apiInbox(s, { hmac_mandatory: true }), apiInbox(s)]);
  });

  const unauthorized = (res: Parameters<typeof expectErrorBody>[0]) => {
    const body = expectErrorBody(res, 401);
    expect(body.errors[0].code).toBe('unauthorized');
    expect(res.text).not.toContain(strict.hmac_token);
  };

  it('announces mandatory identity validation on the inbox', async () => {
    expect(ok(await api.get(inboxPath(strict)), 'inbox').identity_validation_enabled).toBe(true);
  });

  it('with hmac_mandatory: a missing or wrong hash is 401 and creates nothing; the right one verifies the contact inbox', async () => {
    const identifier = unique('user-');
    const email = `${unique('h')}@example.com`;
    unauthorized(await api.post(`${inboxPath(strict)}/contacts`, { identifier, email }));
    unauthorized(await api.post(`${inboxPath(strict)}/contacts`, { identifier, email, identifier_hash: sign(strict, 'someone-else') }));
    unauthorized(await api.post(`${inboxPath(strict)}/contacts`, { identifier, email, identifier_hash: sign(open, identifier) }));
    const search = ok(await s.admin.api.get(`${s.base}/contacts/search?q=${encodeURIComponent(email)}`), 'search');
    expect(search.payload).toEqual([]);

    const contact = await publicContact(api, strict, { identifier, email, identifier_hash: sign(strict, identifier).toUpperCase() });
    const conv = await publicConversation(api, strict, contact.source_id);
    expect(ok(await s.admin.api.get(`${s.base}/conversations/${conv.id}`), 'account show').meta.hmac_verified).toBe(true);

    // Show takes the proof in the query string, update in the body.
    const show = contactPath(strict, contact.source_id);
    unauthorized(await api.get(show));
    unauthorized(await api.get(`${show}?identifier=${identifier}&identifier_hash=${sign(strict, 'nope')}`));
    expect(ok(await api.get(`${show}?identifier=${identifier}&identifier_hash=${sign(strict, identifier)}`), 'show').id).toBe(contact.id);
    unauthorized(await api.patch(show, { name: 'x' }));
    unauthorized(await api.patch(show, { name: 'x', identifier, identifier_hash: 'ab'.repeat(32) }));
    expect(ok(await api.patch(show, { name: 'Verified', identifier, identifier_hash: sign(strict, identifier) }), 'update').name).toBe(
      'Verified',
    );
    expect(ok(await s.admin.api.get(`${s.base}/contacts/${contact.id}`), 'account contact').payload.name).toBe('Verified');
  });

  it('without hmac_mandatory: no hash is fine, a sent hash is checked', async () => {
    const identifier = unique('opt-');
    unauthorized(await api.post(`${inboxPath(open)}/contacts`, { identifier, identifier_hash: sign(open, 'other') }));
    const plain = await publicContact(api, open, { identifier });
    const conv = await publicConversation(api, open, plain.source_id);
    expect(ok(await s.admin.api.get(`${s.base}/conversations/${conv.id}`), 'account show').meta.hmac_verified).toBe(false);
    unauthorized(await api.get(`${contactPath(open, plain.source_id)}?identifier=${identifier}&identifier_hash=bad`));
  });

  it("verification widens what a contact inbox sees to all the contact's conversations, only for the contact's own identifier", async () => {
    const identifier = unique('wide-');
    const other = await apiInbox(s);
    const here = await publicContact(api, open, { identifier });
    const there = await publicContact(api, other, { identifier });
    expect(there.id).toBe(here.id);
    const own = await publicConversation(api, open, here.source_id);
    const elsewhere = await publicConversation(api, other, there.source_id);
    const path = conversationPath(open, here.source_id, elsewhere.id);
    expectErrorBody(await api.get(path), 404);

    // A valid hash of another identifier is accepted but proves nothing about this contact.
    const stranger = unique('stranger-');
    ok(await api.get(`${contactPath(open, here.source_id)}?identifier=${stranger}&identifier_hash=${sign(open, stranger)}`), 'stranger');
    expectErrorBody(await api.get(path), 404);

    ok(await api.get(`${contactPath(open, here.source_id)}?identifier=${identifier}&identifier_hash=${sign(open, identifier)}`), 'verify');
    expect(ok(await api.get(path), 'now visible').id).toBe(elsewhere.id);
    const listed = ok(await api.get(`${contactPath(open, here.source_id)}/conversations`), 'list');
    expect(listed.map((c: any) => c.id)).toEqual([own.id, elsewhere.id]);
    expect(listed[1].inbox_id).toBe(String(other.id));
    // The other contact inbox is not verified by this one's proof.
    expectErrorBody(await api.get(conversationPath(other, there.source_id, own.id)), 404);
  });
});
