import { createHmac } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, seedAccount, unique, type Client, type Res, type SeededAccount } from '../../support/runtime.ts';
import { apiInbox, contactPath, inboxPath, type ApiInbox } from '../public/fixtures.ts';
import { browser, ok, openWidget, widgetApi, widgetInbox, type WidgetInbox } from './fixtures.ts';

// Identity takeover through the widget and the public API. The attacker knows a customer's email, phone
// number and identifier (not the inbox's hmac_token) and calls every widget and public route that takes
// one of them. On inboxes that make the identity hash mandatory nothing may attach the attacker to the
// customer's contact or change identifying fields without a valid identifier_hash; with the customer's
// hash the same calls work. Without the mandate Chatwoot's own rules hold (the last describe).

const HMAC_FAILED = 'HMAC failed: Invalid Identifier Hash Provided';
const sign = (token: string, identifier: string) => createHmac('sha256', token).update(identifier).digest('hex');

type Inbox = WidgetInbox & { hmac_token: string };
type Widget = ReturnType<typeof widgetApi>;

let phones = 0;
const phone = () => `+1555${String(Date.now() % 1_000_000).padStart(6, '0')}${++phones % 10}`;

interface Victim {
  id: number;
  name: string;
  email: string;
  phone_number: string;
  identifier: string;
  custom_attributes: Record<string, unknown>;
}

/** A customer known to the account: email, phone, identifier and custom attributes. */
async function makeVictim(s: SeededAccount): Promise<Victim> {
  const identifier = unique('cust-');
  const body = {
    name: 'Vera Victim',
    email: `${identifier}@example.com`,
    phone_number: phone(),
    identifier,
    custom_attributes: { plan: 'enterprise', account_number: identifier },
  };
  const made = ok(await s.admin.api.post(`${s.base}/contacts`, body), 'victim').payload.contact;
  return { id: made.id, ...body };
}

/** What the account knows of a contact: its identifying fields, attributes, contact inboxes and conversations. */
async function stateOf(s: SeededAccount, id: number) {
  const c = ok(await s.admin.api.get(`${s.base}/contacts/${id}`), 'contact').payload;
  const convs = ok(await s.admin.api.get(`${s.base}/contacts/${id}/conversations`), 'conversations').payload as any[];
  const messages = await Promise.all(
    convs.map(async (cv) =>
      (ok(await s.admin.api.get(`${s.base}/conversations/${cv.id}/messages`), 'messages').payload as any[]).map((m) => [
        m.id,
        m.content,
        m.sender?.id,
      ]),
    ),
  );
  return {
    name: c.name,
    email: c.email,
    phone_number: c.phone_number,
    identifier: c.identifier,
    custom_attributes: c.custom_attributes,
    contact_inboxes: (c.contact_inboxes as any[]).map((ci) => ci.source_id).sort(),
    conversations: convs.map((cv) => cv.id).sort(),
    messages,
  };
}

/** The 401 of identity validation: the error body, with Chatwoot's `error` beside it. */
function refused(res: Res) {
  const body = expectErrorBody(res, 401);
  expect(body.description).toBe(HMAC_FAILED);
  expect((res.body as any).error).toBe(HMAC_FAILED);
  expect(body.errors[0]).toMatchObject({ field: 'identifier_hash', code: 'unauthorized' });
  return body;
}

const leaksNothingOf = (res: Res, v: Victim) => {
  for (const secret of [v.email, v.phone_number, v.identifier, String(v.custom_attributes.account_number)])
    expect(res.text).not.toContain(secret);
};

describe('identity takeover on an HMAC-mandatory inbox', () => {
  let s: SeededAccount;
  let api: Client;
  let strict: Inbox;
  let publicStrict: ApiInbox;

  beforeAll(async () => {
    s = await seedAccount();
    api = await browser();
    [strict, publicStrict] = await Promise.all([
      widgetInbox(s, { hmac_mandatory: true }) as Promise<Inbox>,
      apiInbox(s, { hmac_mandatory: true }),
    ]);
  });

  /** The victim chats in the widget, signed in by the site (valid hash): one conversation, one message. */
  async function victimChats(v: Victim) {
    const session = await openWidget(api, strict);
    const w = widgetApi(api, strict, session.auth_token);
    ok(
      await w.patch('/contact/set_user', { identifier: v.identifier, identifier_hash: sign(strict.hmac_token, v.identifier) }),
      'victim set_user',
    );
    ok(await w.post('/messages', { message: { content: 'my order is late' } }), 'victim message');
  }

  /** An anonymous visitor of the strict inbox. */
  async function attacker(): Promise<{ w: Widget; contactId: number }> {
    const session = await openWidget(api, strict);
    return { w: widgetApi(api, strict, session.auth_token), contactId: session.contact.id };
  }

  it('refuses every widget call that would take the victim’s email, phone or identifier, and leaves the victim as it was', async () => {
    const v = await makeVictim(s);
    await victimChats(v);
    const before = await stateOf(s, v.id);
    const { w, contactId } = await attacker();

    // PATCH /contact (the SDK's setCustomAttributes; Chatwoot's widget also sends the campaign pre-chat details here).
    for (const body of [
      { email: v.email },
      { email: v.email.toUpperCase(), name: 'Mallory' },
      { phone_number: v.phone_number },
      { email: v.email, identifier: v.identifier },
      { email: v.email, identifier: v.identifier, identifier_hash: sign(strict.hmac_token, 'someone-else') },
      { email: v.email, identifier: '', identifier_hash: sign(strict.hmac_token, '') },
      { email: `${unique('fresh')}@example.com` },
    ]) {
      const res = await w.patch('/contact', body);
      refused(res);
      leaksNothingOf(res, v);
    }

    // set_user: Chatwoot skips the check for a call with custom attributes and no identifier.
    for (const body of [
      { email: v.email, custom_attributes: { plan: 'free' } },
      { phone_number: v.phone_number, name: 'Mallory', custom_attributes: { plan: 'free' } },
      { identifier: v.identifier, name: 'Mallory' },
      { identifier: v.identifier, identifier_hash: 'ab'.repeat(32), email: v.email },
      { identifier: '', identifier_hash: sign(strict.hmac_token, ''), email: v.email, custom_attributes: { a: 1 } },
      { email: v.email },
    ]) {
      const res = await w.patch('/contact/set_user', body);
      refused(res);
      leaksNothingOf(res, v);
    }

    // The pre-chat form still starts the visitor's own conversation; what it says about who the visitor is, is ignored.
    const conv = await w.post('/conversations', {
      contact: { email: v.email, phone_number: v.phone_number, name: 'Mallory', custom_attributes: { plan: 'free' } },
      message: { content: 'please refund my order' },
    });
    expect(conv.status).toBe(200);
    leaksNothingOf(conv, v);
    const started = ok(await s.admin.api.get(`${s.base}/conversations/${conv.body.id}`), 'attacker conversation');
    expect(started.meta.sender.id).toBe(contactId);
    expect(started.meta.sender).toMatchObject({ email: null, phone_number: null, identifier: null, name: 'Mallory' });

    // input_email: the answer is kept on the message, the contact is not touched.
    const question = ok(
      await s.admin.api.post(`${s.base}/conversations/${conv.body.id}/messages`, { content: 'Your email?', content_type: 'input_email' }),
      'input_email',
    );
    const answered = ok(
      await w.patch(`/messages/${question.id}`, { contact: { email: v.email }, message: { submitted_email: v.email } }),
      'answer',
    );
    expect(answered.content_attributes.submitted_email).toBe(v.email);

    // A message now is the attacker's, and the attacker's widget shows only the attacker's contact.
    ok(await w.post('/messages', { message: { content: 'this is Vera' } }), 'attacker message');
    const shown = await w.get('/contact');
    expect(shown.body).toMatchObject({
      id: contactId,
      email: null,
      phone_number: null,
      identifier: null,
      custom_attributes: { plan: 'free' },
    });
    leaksNothingOf(shown, v);
    const messages = (ok(await s.admin.api.get(`${s.base}/conversations/${conv.body.id}/messages`), 'messages').payload as any[]).filter(
      (m) => m.message_type === 0,
    );
    expect(messages.map((m) => [m.content, m.sender.id])).toEqual([
      ['please refund my order', contactId],
      ['this is Vera', contactId],
    ]);

    expect(await stateOf(s, v.id)).toEqual(before);
    const mine = ok(await s.admin.api.get(`${s.base}/contacts/${contactId}`), 'attacker contact').payload;
    expect(mine).toMatchObject({ email: null, phone_number: null, identifier: null });
  });

  it('public API of an HMAC-mandatory inbox: creates and updates never attach to the victim', async () => {
    const v = await makeVictim(s);
    await victimChats(v);
    const before = await stateOf(s, v.id);
    const contacts = `${inboxPath(publicStrict)}/contacts`;

    // No hash, a hash of the empty identifier, another inbox's key: refused.
    refused(await api.post(contacts, { email: v.email }));
    refused(await api.post(contacts, { email: v.email, identifier: v.identifier }));
    refused(await api.post(contacts, { email: v.email, identifier: '', identifier_hash: sign(publicStrict.hmac_token, '') }));
    refused(
      await api.post(contacts, {
        phone_number: v.phone_number,
        identifier: v.identifier,
        identifier_hash: sign(strict.hmac_token, v.identifier),
      }),
    );

    // The attacker's own proven identifier with the victim's email or phone: the attacker's own contact, without them.
    const own = unique('mallory-');
    const made = await api.post(contacts, {
      identifier: own,
      identifier_hash: sign(publicStrict.hmac_token, own),
      email: v.email,
      phone_number: v.phone_number,
      name: 'Mallory',
    });
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({ email: null, phone_number: null, name: 'Mallory' });
    expect(made.body.id).not.toBe(v.id);
    leaksNothingOf(made, v);

    // Updating that contact with the victim's email or phone: proven as the attacker, so the values are left out.
    const path = contactPath(publicStrict, made.body.source_id);
    const proof = { identifier: own, identifier_hash: sign(publicStrict.hmac_token, own) };
    for (const body of [{ email: v.email }, { phone_number: v.phone_number }, { email: v.email, name: 'Vera Victim' }]) {
      const res = await api.patch(path, { ...proof, ...body });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: made.body.id, email: null, phone_number: null, identifier: own });
      leaksNothingOf(res, v);
    }
    // An anonymous contact (hash of the empty identifier) cannot set an email or phone at all.
    const anon = ok(await api.post(contacts, { identifier_hash: sign(publicStrict.hmac_token, '') }), 'anonymous');
    const anonPath = contactPath(publicStrict, anon.source_id);
    const empty = { identifier: '', identifier_hash: sign(publicStrict.hmac_token, '') };
    refused(await api.patch(anonPath, { ...empty, email: v.email }));
    refused(await api.patch(anonPath, { ...empty, phone_number: v.phone_number }));
    refused(await api.patch(anonPath, { ...empty, email: `${unique('fresh')}@example.com` }));
    expect(ok(await api.patch(anonPath, { ...empty, name: 'Anon', custom_attributes: { x: 1 } }), 'name only')).toMatchObject({
      id: anon.id,
      name: 'Anon',
      email: null,
    });

    expect(await stateOf(s, v.id)).toEqual(before);
  });

  it('with the victim’s valid identifier_hash the same calls work', async () => {
    const v = await makeVictim(s);
    const hash = sign(strict.hmac_token, v.identifier);

    // set_user with email and custom attributes: the visitor becomes the customer.
    const a = await attacker();
    const user = ok(
      await a.w.patch('/contact/set_user', {
        identifier: v.identifier,
        identifier_hash: hash,
        email: v.email,
        custom_attributes: { seen: true },
      }),
      'set_user',
    );
    expect(user).toMatchObject({ id: v.id, email: v.email, phone_number: v.phone_number });
    expect(ok(await a.w.get('/contact'), 'contact')).toMatchObject({
      id: v.id,
      identifier: v.identifier,
      custom_attributes: { plan: 'enterprise', seen: true },
    });

    // PATCH /contact with the identifier and its hash: joins the customer too.
    const b = await attacker();
    const joined = ok(
      await b.w.patch('/contact', { identifier: v.identifier, identifier_hash: hash, email: v.email, name: 'Vera V.' }),
      'update',
    );
    expect(joined).toMatchObject({ id: v.id, email: v.email, name: 'Vera V.' });
    expectErrorBody(await s.admin.api.get(`${s.base}/contacts/${b.contactId}`), 404);

    // A proven visitor may change its own email and phone; the pre-chat form and input_email keep it.
    const newPhone = phone();
    expect(ok(await b.w.patch('/contact', { phone_number: newPhone }), 'own phone')).toMatchObject({ id: v.id, phone_number: newPhone });
    const conv = ok(
      await b.w.post('/conversations', { contact: { email: v.email, name: 'Someone' }, message: { content: 'hello' } }),
      'pre-chat',
    );
    const started = ok(await s.admin.api.get(`${s.base}/conversations/${conv.id}`), 'conversation');
    expect(started.meta.sender).toMatchObject({ id: v.id, name: 'Vera V.' });
    const newEmail = `${unique('vera')}@example.com`;
    const q = ok(
      await s.admin.api.post(`${s.base}/conversations/${conv.id}/messages`, { content: 'Email?', content_type: 'input_email' }),
      'input_email',
    );
    ok(await b.w.patch(`/messages/${q.id}`, { contact: { email: newEmail }, message: { submitted_email: newEmail } }), 'answer');
    expect(ok(await s.admin.api.get(`${s.base}/contacts/${v.id}`), 'victim').payload).toMatchObject({
      email: newEmail,
      phone_number: newPhone,
    });

    // Even proven, an email or phone of another contact never joins it: it is left out.
    const other = await makeVictim(s);
    const otherBefore = await stateOf(s, other.id);
    expect(ok(await b.w.patch('/contact', { email: other.email, phone_number: other.phone_number }), 'other’s email')).toMatchObject({
      id: v.id,
      email: newEmail,
      phone_number: newPhone,
    });
    ok(
      await b.w.patch('/contact/set_user', { identifier: v.identifier, identifier_hash: hash, email: other.email }),
      'set_user other’s email',
    );
    ok(await b.w.post('/conversations', { contact: { email: other.email }, message: { content: 'again' } }), 'pre-chat other');
    expect(await stateOf(s, other.id)).toEqual(otherBefore);
    expect(ok(await s.admin.api.get(`${s.base}/contacts/${v.id}`), 'victim').payload).toMatchObject({
      email: newEmail,
      phone_number: newPhone,
    });

    // Public API: the customer's proven identifier finds its contact.
    const pub = ok(
      await api.post(`${inboxPath(publicStrict)}/contacts`, {
        identifier: v.identifier,
        identifier_hash: sign(publicStrict.hmac_token, v.identifier),
        email: newEmail,
      }),
      'public create',
    );
    expect(pub.id).toBe(v.id);
    const proof = { identifier: v.identifier, identifier_hash: sign(publicStrict.hmac_token, v.identifier) };
    const renamed = ok(
      await api.patch(contactPath(publicStrict, pub.source_id), { ...proof, name: 'Vera Public', email: `${unique('vp')}@example.com` }),
      'public update',
    );
    expect(renamed).toMatchObject({ id: v.id, name: 'Vera Public' });
  });
});

describe('identity on an inbox without the mandate: Chatwoot’s rules', () => {
  let s: SeededAccount;
  let api: Client;
  let open: Inbox;
  let publicOpen: ApiInbox;

  beforeAll(async () => {
    s = await seedAccount();
    api = await browser();
    [open, publicOpen] = await Promise.all([widgetInbox(s) as Promise<Inbox>, apiInbox(s)]);
  });

  const visitor = async () => {
    const session = await openWidget(api, open);
    return { w: widgetApi(api, open, session.auth_token), contactId: session.contact.id };
  };

  it('an email or phone another contact holds folds the visitor into that contact (it survives, its name kept on the pre-chat form)', async () => {
    const v = await makeVictim(s);
    const a = await visitor();
    const merged = ok(await a.w.patch('/contact', { email: v.email }), 'update');
    expect(merged).toMatchObject({ id: v.id, email: v.email, phone_number: v.phone_number, identifier: v.identifier });
    expectErrorBody(await s.admin.api.get(`${s.base}/contacts/${a.contactId}`), 404);

    const b = await visitor();
    const conv = ok(
      await b.w.post('/conversations', { contact: { phone_number: v.phone_number, name: 'Somebody' }, message: { content: 'hi' } }),
      'pre-chat',
    );
    expect(ok(await s.admin.api.get(`${s.base}/conversations/${conv.id}`), 'conversation').meta.sender).toMatchObject({
      id: v.id,
      name: 'Vera Victim',
    });

    // input_email: the same.
    const c = await visitor();
    const started = ok(await c.w.post('/messages', { message: { content: 'hello' } }), 'message');
    const q = ok(
      await s.admin.api.post(`${s.base}/conversations/${started.conversation_id}/messages`, {
        content: 'Email?',
        content_type: 'input_email',
      }),
      'q',
    );
    ok(await c.w.patch(`/messages/${q.id}`, { contact: { email: v.email } }), 'answer');
    expect(ok(await c.w.get('/contact'), 'contact').id).toBe(v.id);

    // The public API's update and create, likewise.
    const pub = ok(await api.post(`${inboxPath(publicOpen)}/contacts`, { name: 'Client' }), 'public contact');
    expect(ok(await api.patch(contactPath(publicOpen, pub.source_id), { phone_number: v.phone_number }), 'public update').id).toBe(v.id);
    expect(ok(await api.post(`${inboxPath(publicOpen)}/contacts`, { email: v.email }), 'public create').id).toBe(v.id);
  });

  it('never joins two contacts with different identifiers, nor by a phone whose contact has another email', async () => {
    const v = await makeVictim(s);
    const before = await stateOf(s, v.id);

    // set_user with another identifier and the victim's email: the email is left out.
    const a = await visitor();
    const mine = unique('me-');
    const user = ok(await a.w.patch('/contact/set_user', { identifier: mine, email: v.email, name: 'Me' }), 'set_user');
    expect(user).toMatchObject({ id: a.contactId, email: null, name: 'Me' });
    // Identified as another user, its later update cannot take the victim's email either.
    expect(ok(await a.w.patch('/contact', { email: v.email }), 'update')).toMatchObject({ id: a.contactId, email: null, identifier: mine });

    // A phone whose contact has another email than the one sent: the phone is left out, the email kept.
    const b = await visitor();
    const email = `${unique('b')}@example.com`;
    expect(ok(await b.w.patch('/contact', { email, phone_number: v.phone_number }), 'update')).toMatchObject({
      id: b.contactId,
      email,
      phone_number: null,
    });

    expect(await stateOf(s, v.id)).toEqual(before);
  });
});
