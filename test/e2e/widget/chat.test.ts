import { createHash, createHmac } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, seedAccount, unique, type Client, type SeededAccount } from '../../support/runtime.ts';
import { browser, ok, openWidget, widgetInbox, type WidgetInbox, type WidgetSession } from './fixtures.ts';

// The widget's chat API as Chatwoot's widget calls it: website_token in the query string, the visitor's
// auth token in X-Auth-Token. What the visitor does is checked through the account API.

const W = '/api/v1/widget';

/** A visitor's widget: every call carries the website token and, when given, the auth token. */
function widget(api: Client, inbox: WidgetInbox, token: string | undefined) {
  const url = (path: string, query = '') => `${W}${path}?website_token=${encodeURIComponent(inbox.website_token)}${query}`;
  const h = (): Record<string, string> => (token ? { 'X-Auth-Token': token } : {});
  return {
    get: (path: string, query = '') => api.get(url(path, query), h()),
    post: (path: string, body?: unknown) => api.post(url(path), body, h()),
    patch: (path: string, body?: unknown) => api.patch(url(path), body, h()),
    delete: (path: string) => api.delete(url(path), undefined, h()),
  };
}

describe('widget chat API', () => {
  let s: SeededAccount;
  let inbox: WidgetInbox & { hmac_token: string };
  let api: Client;

  beforeAll(async () => {
    s = await seedAccount();
    inbox = (await widgetInbox(s, { greeting_enabled: true, greeting_message: 'Hello!' })) as WidgetInbox & { hmac_token: string };
    api = await browser();
  });

  const conversationOf = async (id: number) => ok(await s.admin.api.get(`${s.base}/conversations/${id}`), 'conversation');
  const messagesOf = async (id: number) => ok(await s.admin.api.get(`${s.base}/conversations/${id}/messages`), 'messages').payload as any[];

  it('chats: the first message starts a conversation, history and agent replies are read back', async () => {
    const v = await openWidget(api, inbox);
    const w = widget(api, inbox, v.auth_token);
    expect(ok(await w.get('/conversations'), 'no conversation')).toEqual({});
    expect(ok(await w.get('/messages'), 'no messages')).toEqual([]);

    const sent = await w.post('/messages', {
      message: { content: 'Hi, I need help', echo_id: 'e-1', timestamp: 'now', referer_url: 'https://example.com/pricing' },
    });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({
      id: expect.any(Number),
      content: 'Hi, I need help',
      message_type: 0,
      content_type: 'text',
      created_at: expect.any(Number),
      conversation_id: expect.any(Number),
      echo_id: 'e-1',
      sender: expect.objectContaining({ id: v.contact.id, type: 'contact' }),
    });
    const displayId = sent.body.conversation_id;
    const conv = await conversationOf(displayId);
    expect(conv).toMatchObject({
      id: displayId,
      inbox_id: inbox.id,
      status: 'open',
      meta: { sender: expect.objectContaining({ id: v.contact.id }) },
    });
    expect(conv.additional_attributes).toMatchObject({ referer: 'https://example.com/pricing', initiated_at: { timestamp: 'now' } });

    const brief = ok(await w.get('/conversations'), 'conversation');
    expect(brief).toMatchObject({ id: displayId, inbox_id: inbox.id, status: 'open' });

    // A second message goes to the same conversation; the agent's reply and private note: only the reply shows.
    ok(await w.post('/messages', { message: { content: 'Anyone?' } }), 'second');
    ok(
      await s.admin.api.post(`${s.base}/conversations/${displayId}/messages`, { content: 'Hello from support', message_type: 'outgoing' }),
      'reply',
    );
    ok(await s.admin.api.post(`${s.base}/conversations/${displayId}/messages`, { content: 'secret', private: true }), 'note');
    const list = ok(await w.get('/messages'), 'messages') as any[];
    expect(list.map((m) => m.content)).toEqual(['Hi, I need help', 'Anyone?', 'Hello from support']);
    expect(list[2]).toMatchObject({ message_type: 1, conversation_id: displayId, sender: expect.objectContaining({ type: 'user' }) });
    const older = ok(await w.get('/messages', `&before=${list[2].id}`), 'before') as any[];
    expect(older.map((m) => m.content)).toEqual(['Hi, I need help', 'Anyone?']);
    expectErrorBody(await w.get('/messages', '&before=abc'), 422);

    // Seen, typing.
    expect((await w.post('/conversations/update_last_seen')).status).toBe(200);
    expect((await conversationOf(displayId)).contact_last_seen_at).toEqual(expect.any(Number));
    expect((await w.post('/conversations/toggle_typing', { typing_status: 'on' })).status).toBe(200);
    expect((await w.post('/conversations/toggle_typing', { typing_status: 'off' })).status).toBe(200);
    expect((await w.post('/conversations/transcript')).status).toBe(200);
  });

  it('pre-chat form: POST /conversations saves the contact and starts a conversation with its first message', async () => {
    const v = await openWidget(api, inbox);
    const w = widget(api, inbox, v.auth_token);
    const email = `${unique('pre')}@example.com`;
    const res = await w.post('/conversations', {
      contact: { name: 'Pat Visitor', email: email.toUpperCase(), phone_number: '+15550001111', custom_attributes: { plan: 'gold' } },
      message: { content: 'Question about billing', timestamp: 'ts', referer_url: 'https://example.com/' },
      custom_attributes: { order: 42 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: expect.any(Number),
      inbox_id: inbox.id,
      status: 'open',
      contact_last_seen_at: 0,
      meta: {},
      muted: false,
      timestamp: expect.any(Number),
      messages: [expect.objectContaining({ content: 'Question about billing', message_type: 0 })],
    });
    const contact = ok(await s.admin.api.get(`${s.base}/contacts/${v.contact.id}`), 'contact').payload;
    expect(contact).toMatchObject({ name: 'Pat Visitor', email, phone_number: '+15550001111', custom_attributes: { plan: 'gold' } });
    expect((await conversationOf(res.body.id)).custom_attributes).toEqual({ order: 42 });
    expectErrorBody(await w.post('/conversations', { contact: { email: 'not-an-email' }, message: { content: 'x' } }), 422);
  });

  it('conversation custom attributes, labels and ending the chat', async () => {
    const v = await openWidget(api, inbox);
    const w = widget(api, inbox, v.auth_token);
    // Nothing to act on yet.
    expectErrorBody(await w.post('/conversations/toggle_typing', { typing_status: 'on' }), 404);
    expectErrorBody(await w.get('/conversations/toggle_status'), 404);
    expectErrorBody(await w.post('/conversations/set_custom_attributes', { custom_attributes: { a: 1 } }), 404);
    expect((await w.post('/conversations/update_last_seen')).status).toBe(200);

    const { conversation_id: id } = ok(await w.post('/messages', { message: { content: 'hello' } }), 'message');
    const set = ok(await w.post('/conversations/set_custom_attributes', { custom_attributes: { a: 1, b: 'two', c: true } }), 'set');
    expect(set).toMatchObject({ id, custom_attributes: { a: 1, b: 'two', c: true } });
    ok(await w.post('/conversations/destroy_custom_attributes', { custom_attribute: ['a', 'c'] }), 'destroy');
    expect((await conversationOf(id)).custom_attributes).toEqual({ b: 'two' });
    expectErrorBody(await w.post('/conversations/set_custom_attributes', { custom_attributes: 'nope' }), 422);

    const title = unique('vip').toLowerCase();
    ok(await s.admin.api.post(`${s.base}/labels`, { title }), 'label');
    expect((await w.post('/labels', { label: title })).status).toBe(204);
    expect((await w.post('/labels', { label: 'undefined-label' })).status).toBe(204);
    expect(ok(await s.admin.api.get(`${s.base}/conversations/${id}/labels`), 'labels').payload).toEqual([title]);
    expect((await w.delete(`/labels/${title}`)).status).toBe(204);
    expect(ok(await s.admin.api.get(`${s.base}/conversations/${id}/labels`), 'labels').payload).toEqual([]);

    expect((await w.get('/conversations/toggle_status')).status).toBe(200);
    expect((await conversationOf(id)).status).toBe('resolved');
    // A new message reopens it (the widget goes on in the same conversation).
    ok(await w.post('/messages', { message: { content: 'one more thing' } }), 'reopen');
    expect((await conversationOf(id)).status).toBe('open');

    // An inbox without `end_conversation` does not let the visitor end it.
    const strict = await widgetInbox(s, { selected_feature_flags: ['attachments'] });
    const v2 = await openWidget(api, strict);
    const w2 = widget(api, strict, v2.auth_token);
    ok(await w2.post('/messages', { message: { content: 'hi' } }), 'message');
    expectErrorBody(await w2.get('/conversations/toggle_status'), 403);
  });

  it('sends attachments as multipart message[attachments][]', async () => {
    const v = await openWidget(api, inbox);
    const form = new FormData();
    form.append('message[content]', 'see attached');
    form.append('message[attachments][]', new Blob([Buffer.from('hello file')], { type: 'text/plain' }), 'note.txt');
    const res = await api.post(`${W}/messages?website_token=${inbox.website_token}`, form, { 'X-Auth-Token': v.auth_token });
    expect(res.status).toBe(200);
    expect(res.body.attachments).toEqual([
      expect.objectContaining({ file_type: 'file', data_url: expect.stringMatching(/^http/), file_size: 10 }),
    ]);
    const stored = await messagesOf(res.body.conversation_id);
    expect(stored.at(-1).attachments).toHaveLength(1);
    // The file is served back.
    const file = await fetch(res.body.attachments[0].data_url);
    expect(await file.text()).toBe('hello file');
  });

  it('direct uploads: the file goes straight to storage, the message names it by signed_id', async () => {
    const v = await openWidget(api, inbox);
    const w = widget(api, inbox, v.auth_token);
    const body = Buffer.from('uploaded directly');
    const blob = ok(
      await w.post('/direct_uploads', {
        blob: {
          filename: 'direct.txt',
          byte_size: body.length,
          checksum: createHash('md5').update(body).digest('base64'),
          content_type: 'text/plain',
        },
      }),
      'direct upload',
    );
    expect(blob).toMatchObject({
      filename: 'direct.txt',
      content_type: 'text/plain',
      byte_size: body.length,
      signed_id: expect.any(String),
      direct_upload: { url: expect.stringMatching(/^http/), headers: { 'Content-Type': 'text/plain' } },
    });
    const put = await fetch(blob.direct_upload.url, { method: 'PUT', headers: blob.direct_upload.headers, body });
    expect(put.ok).toBe(true);
    const sent = ok(await w.post('/messages', { message: { content: 'direct', attachments: [blob.signed_id] } }), 'message');
    expect(sent.attachments).toEqual([expect.objectContaining({ file_type: 'file', extension: 'txt', file_size: body.length })]);
    expect(await (await fetch(sent.attachments[0].data_url)).text()).toBe('uploaded directly');

    // Another visitor cannot attach it; a forged id is refused; a too large blob is refused up front.
    const other = widget(api, inbox, (await openWidget(api, inbox)).auth_token);
    expectErrorBody(await other.post('/messages', { message: { content: 'x', attachments: [blob.signed_id] } }), 422);
    expectErrorBody(await w.post('/messages', { message: { content: 'x', attachments: ['not-a-signed-id'] } }), 422);
    expectErrorBody(await w.post('/direct_uploads', { blob: { filename: 'big.bin', byte_size: 50 * 1024 * 1024 } }), 422);
    expectErrorBody(await w.post('/direct_uploads', { blob: { byte_size: 3 } }), 422);
  });

  it('answers interactive messages: input_select, form, CSAT and input_email', async () => {
    const v = await openWidget(api, inbox);
    const w = widget(api, inbox, v.auth_token);
    const { conversation_id: id } = ok(await w.post('/messages', { message: { content: 'hi' } }), 'message');
    const post = async (body: unknown) => ok(await s.admin.api.post(`${s.base}/conversations/${id}/messages`, body), 'agent message');
    const select = await post({
      content: 'Pick one',
      content_type: 'input_select',
      content_attributes: {
        items: [
          { title: 'A', value: 'a' },
          { title: 'B', value: 'b' },
        ],
      },
    });
    const csat = await post({ content: 'Rate us', content_type: 'input_csat' });
    const email = await post({ content: 'Your email?', content_type: 'input_email' });
    const text = await post({ content: 'plain' });

    const picked = ok(await w.patch(`/messages/${select.id}`, { message: { submitted_values: [{ title: 'B', value: 'b' }] } }), 'select');
    expect(picked.content_attributes.submitted_values).toEqual([{ title: 'B', value: 'b' }]);
    const rated = ok(
      await w.patch(`/messages/${csat.id}`, {
        message: { submitted_values: { csat_survey_response: { rating: 5, feedback_message: 'great' } } },
      }),
      'csat',
    );
    expect(rated.content_attributes.submitted_values).toEqual({ csat_survey_response: { rating: 5, feedback_message: 'great' } });
    const addr = `${unique('mail')}@example.com`;
    const mailed = ok(await w.patch(`/messages/${email.id}`, { contact: { email: addr }, message: { submitted_email: addr } }), 'email');
    expect(mailed.content_attributes.submitted_email).toBe(addr);
    expect(ok(await s.admin.api.get(`${s.base}/contacts/${v.contact.id}`), 'contact').payload.email).toBe(addr);

    expectErrorBody(await w.patch(`/messages/${text.id}`, { message: { submitted_values: [{ value: 'x' }] } }), 422);
    expectErrorBody(await w.patch(`/messages/${csat.id}`, { message: { submitted_values: { csat_survey_response: { rating: 9 } } } }), 422);
    expectErrorBody(await w.patch('/messages/999999999', { message: { submitted_values: [{ value: 'x' }] } }), 404);
  });

  it('contact: show, update, destroy custom attributes', async () => {
    const v = await openWidget(api, inbox);
    const w = widget(api, inbox, v.auth_token);
    const shown = ok(await w.get('/contact'), 'contact');
    expect(shown).toMatchObject({
      id: v.contact.id,
      name: v.contact.name,
      email: null,
      identifier: null,
      has_email: false,
      source_id: v.contact.source_id,
      pubsub_token: v.contact.pubsub_token,
    });

    const email = `${unique('c')}@example.com`;
    const updated = ok(await w.patch('/contact', { name: 'Kim', email, custom_attributes: { plan: 'pro', seats: 3 } }), 'update');
    expect(updated).toMatchObject({ id: v.contact.id, name: 'Kim', email, custom_attributes: { plan: 'pro', seats: 3 }, has_email: true });
    // The identifier changes only through set_user.
    expect(ok(await w.patch('/contact', { identifier: 'sneaky' }), 'identifier').identifier).toBeNull();
    const dropped = ok(await w.post('/contact/destroy_custom_attributes', { custom_attributes: ['seats'] }), 'destroy');
    expect(dropped.custom_attributes).toEqual({ plan: 'pro' });
    expectErrorBody(await w.patch('/contact', { email: 'broken' }), 422);
  });

  it('set_user: takes the identifier, merges a visitor into the known user (Chatwoot’s ContactIdentifyAction), starts over for another user', async () => {
    const ident = unique('user-');
    const v = await openWidget(api, inbox);
    const w = widget(api, inbox, v.auth_token);
    const first = ok(await w.patch('/contact/set_user', { identifier: ident, name: 'Jo User', email: `${ident}@example.com` }), 'set_user');
    expect(first).toEqual({
      id: v.contact.id,
      name: 'Jo User',
      email: `${ident}@example.com`,
      phone_number: null,
      pubsub_token: v.contact.pubsub_token,
    });
    ok(await w.post('/messages', { message: { content: 'as Jo' } }), 'message');

    // The same user on another device: that visitor's contact, with what it wrote, is merged into Jo's; its token keeps working.
    const other = await openWidget(api, inbox);
    const w2 = widget(api, inbox, other.auth_token);
    ok(await w2.post('/messages', { message: { content: 'before signing in' } }), 'anonymous message');
    const merged = ok(await w2.patch('/contact/set_user', { identifier: ident, name: 'Jo User' }), 'set_user again');
    expect(merged).toMatchObject({ id: v.contact.id, pubsub_token: other.contact.pubsub_token });
    expect(merged).not.toHaveProperty('widget_auth_token');
    expect(ok(await w2.get('/contact'), 'contact').id).toBe(v.contact.id);
    expect(ok(await w2.get('/messages'), 'messages').map((m: any) => m.content)).toEqual(['before signing in']);
    expectErrorBody(await s.admin.api.get(`${s.base}/contacts/${other.contact.id}`), 404);
    const convs = ok(await s.admin.api.get(`${s.base}/contacts/${v.contact.id}/conversations`), 'conversations').payload;
    expect(convs).toHaveLength(2);
    expect(convs.every((c: any) => c.meta.sender.id === v.contact.id)).toBe(true);

    // With a valid identity hash the contact inbox is verified and sees the user's conversations here.
    const hash = createHmac('sha256', inbox.hmac_token).update(ident).digest('hex');
    const third = await openWidget(api, inbox);
    const w4 = widget(api, inbox, third.auth_token);
    const verified = ok(await w4.patch('/contact/set_user', { identifier: ident, identifier_hash: hash }), 'verified');
    expect(verified.id).toBe(v.contact.id);
    // Its widget shows Jo's newest conversation here: the one merged in from the second device.
    expect(ok(await w4.get('/messages'), 'messages').map((m: any) => m.content)).toEqual(['before signing in']);

    // A wrong hash is refused and changes nothing.
    expectErrorBody(await w4.patch('/contact/set_user', { identifier: ident, identifier_hash: 'ab'.repeat(32) }), 401);

    // Signed in as someone else on Jo's device: a new visitor (new token), not Jo's contact renamed.
    const otherIdent = unique('user-');
    const switched = ok(await w.patch('/contact/set_user', { identifier: otherIdent, name: 'Kim' }), 'another user');
    expect(switched.id).not.toBe(v.contact.id);
    expect(switched.widget_auth_token).toEqual(expect.any(String));
    const kim = widget(api, inbox, switched.widget_auth_token);
    expect(ok(await kim.get('/contact'), 'contact')).toMatchObject({ id: switched.id, name: 'Kim' });
    expect(ok(await kim.get('/conversations'), 'conversations')).toEqual({});
    expect(ok(await s.admin.api.get(`${s.base}/contacts/${v.contact.id}`), 'jo').payload.identifier).toBe(ident);
  });

  it('set_user on an inbox that makes the identity hash mandatory', async () => {
    const strict = (await widgetInbox(s, { hmac_mandatory: true })) as WidgetInbox & { hmac_token: string };
    const v = await openWidget(api, strict);
    const w = widget(api, strict, v.auth_token);
    expectErrorBody(await w.patch('/contact/set_user', { identifier: 'u-1', name: 'No Hash' }), 401);
    const hash = createHmac('sha256', strict.hmac_token).update('u-1').digest('hex');
    expect(ok(await w.patch('/contact/set_user', { identifier: 'u-1', identifier_hash: hash, name: 'Hashed' }), 'hashed').name).toBe(
      'Hashed',
    );
  });

  it('inbox members and campaigns', async () => {
    const v = await openWidget(api, inbox);
    const w = widget(api, inbox, v.auth_token);
    ok(await s.admin.api.post(`${s.base}/inbox_members`, { inbox_id: inbox.id, user_ids: [s.agent.id] }), 'member');
    const members = ok(await w.get('/inbox_members'), 'members');
    expect(members.payload).toEqual([
      { name: expect.any(String), avatar_url: expect.any(String), availability_status: expect.any(String) },
    ]);
    expect(ok(await w.get('/campaigns'), 'campaigns')).toEqual([]);
  });

  describe('who may call', () => {
    let mine: WidgetSession;
    let theirs: WidgetSession;
    let otherInbox: WidgetInbox;
    let theirConversation: number;

    beforeAll(async () => {
      mine = await openWidget(api, inbox);
      theirs = await openWidget(api, inbox);
      theirConversation = ok(
        await widget(api, inbox, theirs.auth_token).post('/messages', { message: { content: 'private to them' } }),
        'theirs',
      ).conversation_id;
      otherInbox = await widgetInbox(s);
    });

    const CALLS: [string, (w: ReturnType<typeof widget>) => Promise<any>][] = [
      ['GET /conversations', (w) => w.get('/conversations')],
      ['POST /conversations', (w) => w.post('/conversations', { message: { content: 'x' } })],
      ['POST /conversations/toggle_typing', (w) => w.post('/conversations/toggle_typing', { typing_status: 'on' })],
      ['POST /conversations/update_last_seen', (w) => w.post('/conversations/update_last_seen')],
      ['POST /conversations/set_custom_attributes', (w) => w.post('/conversations/set_custom_attributes', { custom_attributes: {} })],
      [
        'POST /conversations/destroy_custom_attributes',
        (w) => w.post('/conversations/destroy_custom_attributes', { custom_attribute: ['a'] }),
      ],
      ['GET /conversations/toggle_status', (w) => w.get('/conversations/toggle_status')],
      ['POST /conversations/transcript', (w) => w.post('/conversations/transcript')],
      ['GET /messages', (w) => w.get('/messages')],
      ['POST /messages', (w) => w.post('/messages', { message: { content: 'x' } })],
      ['PATCH /messages/1', (w) => w.patch('/messages/1', { message: { submitted_values: [] } })],
      ['GET /contact', (w) => w.get('/contact')],
      ['PATCH /contact', (w) => w.patch('/contact', { name: 'x' })],
      ['PATCH /contact/set_user', (w) => w.patch('/contact/set_user', { identifier: 'x' })],
      ['POST /contact/destroy_custom_attributes', (w) => w.post('/contact/destroy_custom_attributes', { custom_attributes: ['a'] })],
      ['GET /inbox_members', (w) => w.get('/inbox_members')],
      ['GET /campaigns', (w) => w.get('/campaigns')],
      ['POST /labels', (w) => w.post('/labels', { label: 'x' })],
      ['DELETE /labels/x', (w) => w.delete('/labels/x')],
      ['POST /direct_uploads', (w) => w.post('/direct_uploads', { blob: { filename: 'a.txt', byte_size: 1 } })],
    ];

    it.each(CALLS)(
      '%s: 401 without, with a forged, or with another inbox’s auth token; 404 for a wrong website token',
      async (_name, call) => {
        expectErrorBody(await call(widget(api, inbox, undefined)), 401);
        expectErrorBody(await call(widget(api, inbox, `${mine.auth_token.slice(0, -3)}abc`)), 401);
        const elsewhere = await openWidget(api, otherInbox);
        expectErrorBody(await call(widget(api, inbox, elsewhere.auth_token)), 401);
        expectErrorBody(await call(widget(api, { ...inbox, website_token: 'no-such-token' }, mine.auth_token)), 404);
        expectErrorBody(await call(widget(api, otherInbox, mine.auth_token)), 401);
      },
    );

    it('a visitor never sees another visitor’s conversation', async () => {
      const w = widget(api, inbox, mine.auth_token);
      expect(ok(await w.get('/conversations'), 'mine')).toEqual({});
      expect(ok(await w.get('/messages'), 'mine')).toEqual([]);
      const sent = ok(await w.post('/messages', { message: { content: 'my own' } }), 'mine');
      expect(sent.conversation_id).not.toBe(theirConversation);
      expect((await messagesOf(theirConversation)).map((m) => m.content)).toEqual(['private to them']);
    });
  });
});
