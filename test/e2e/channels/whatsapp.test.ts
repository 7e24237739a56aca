import { createHmac, randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overrideEnv } from '../../support/env.ts';
import { PNG, startFakeProvider, type FakeProvider } from '../../support/providers.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';
import { client, runtime, seedAccount, type SeededAccount } from '../../support/runtime.ts';
import { until, untilState } from '../../support/until.ts';
import { deliveries, messageBySource as bySource, messagesOf as readMessages } from './fixtures.ts';

// WhatsApp through Meta's Cloud API, end to end: Meta's documented webhook payloads posted signed to
// /webhooks/whatsapp/{phone_number} (a fake Graph API on 127.0.0.1 serves the media and takes the replies),
// stored as Chatwoot stores them, announced to an account webhook; agents' replies reach the fake with Chatwoot's
// exact bodies, statuses move them forward, refusals fail them and `retry` sends them again.

const APP_SECRET = 'meta-app-secret';
const PHONE_NUMBER_ID = '106540352242922';

const sign = (body: string, secret = APP_SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

describe('WhatsApp Cloud channel', () => {
  let graph: FakeProvider;
  let hook: Receiver;
  let s: SeededAccount;
  let restoreEnv: () => void;
  let phone: string;
  let inboxId: number;
  let verifyToken: string;
  let base: string;
  let wamidSeq = 0;
  let sent = 0;

  const wamid = () => `wamid.HBgM${Date.now().toString(36)}${++wamidSeq}`;
  const customer = () => `1555${randomInt(1_000_000, 9_999_999)}`;

  /** Meta's `messages` webhook for one message of `from` (Cloud API, Graph v19+ shape). */
  const payload = (from: string, name: string, message: Record<string, unknown>) =>
    JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '102290129340398',
          changes: [
            {
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: phone.slice(1), phone_number_id: PHONE_NUMBER_ID },
                contacts: [{ profile: { name }, wa_id: from }],
                messages: [{ from, timestamp: String(Math.floor(Date.now() / 1000)), ...message }],
              },
              field: 'messages',
            },
          ],
        },
      ],
    });

  const statusPayload = (id: string, status: string, recipient: string, errors?: unknown[]) =>
    JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '102290129340398',
          changes: [
            {
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: phone.slice(1), phone_number_id: PHONE_NUMBER_ID },
                statuses: [
                  { id, status, timestamp: String(Math.floor(Date.now() / 1000)), recipient_id: recipient, ...(errors ? { errors } : {}) },
                ],
              },
              field: 'messages',
            },
          ],
        },
      ],
    });

  const post = (body: string, signature: string | undefined = sign(body)) =>
    client(base).post(`/webhooks/whatsapp/${phone}`, body, {
      'content-type': 'application/json',
      ...(signature ? { 'x-hub-signature-256': signature } : {}),
    });

  const conversationsOf = async () => {
    const res = await s.admin.api.get(`${s.base}/conversations?inbox_id=${inboxId}&status=all`);
    expect(res.status).toBe(200);
    return res.body.data.payload as any[];
  };
  const conversationOfContact = (sourceId: string) =>
    until(async () => (await conversationsOf()).find((c) => c.meta.sender.phone_number === `+${sourceId}`), {
      what: `a conversation of ${sourceId}`,
    });
  const messagesOf = (conversationId: number) => readMessages(s, conversationId);
  const messageBySource = (conversationId: number, sourceId: string) => bySource(s, conversationId, sourceId);
  const events = (name: string, match?: (j: any) => boolean) => deliveries(hook, name, match);

  beforeAll(async () => {
    const rt = await runtime();
    base = rt.baseUrl;
    graph = await startFakeProvider();
    // Media: the id's metadata names a URL on the same host, which serves the bytes (both with the bearer token).
    graph.on('GET', /^\/v13\.0\/media-[\w-]+$/, (req) => ({
      json: { url: `${graph.url}/files${req.path.slice('/v13.0'.length)}`, mime_type: 'image/png', id: req.path.split('/').pop() },
    }));
    graph.on('GET', /^\/files\//, (req) =>
      req.headers.authorization === 'Bearer cloud-token'
        ? { body: PNG, headers: { 'content-type': 'image/png' } }
        : { status: 401, json: { error: { message: 'no token' } } },
    );
    graph.on('GET', /^\/v14\.0\/\d+\/message_templates$/, () => ({ json: { data: [] } }));
    graph.on('POST', /^\/v22\.0\/\d+\/subscribed_apps$/, () => ({ json: { success: true } }));
    graph.on('POST', /^\/v13\.0\/\d+\/messages$/, () => ({
      json: { messaging_product: 'whatsapp', contacts: [{ input: 'x', wa_id: 'x' }], messages: [{ id: `wamid.OUT${++sent}` }] },
    }));
    restoreEnv = overrideEnv({ WHATSAPP_CLOUD_BASE_URL: graph.url, FB_APP_SECRET: APP_SECRET });
    s = await seedAccount();
    hook = await startReceiver();
    const wh = await s.admin.api.post(`${s.base}/webhooks`, {
      url: hook.url,
      subscriptions: ['contact_created', 'conversation_created', 'message_created', 'message_updated'],
    });
    expect(wh.status).toBe(200);
    phone = `+1555${randomInt(1_000_000, 9_999_999)}`;
    const inbox = await s.admin.api.post(`${s.base}/inboxes`, {
      name: 'Support WA',
      channel: {
        type: 'whatsapp',
        phone_number: phone,
        provider: 'whatsapp_cloud',
        provider_config: { api_key: 'cloud-token', phone_number_id: PHONE_NUMBER_ID, business_account_id: '102290129340398' },
      },
    });
    expect(inbox.status).toBe(200);
    inboxId = inbox.body.id;
    verifyToken = inbox.body.provider_config.webhook_verify_token;
    expect(verifyToken).toMatch(/^\w{24,}$/);
  }, 120_000);

  afterAll(async () => {
    restoreEnv?.();
    await graph?.close();
    await hook?.close();
  });

  it('answers Meta’s verify handshake with the challenge, and 401 for a wrong token', async () => {
    const ok = await client(base).get(
      `/webhooks/whatsapp/${phone}?hub.mode=subscribe&hub.verify_token=${verifyToken}&hub.challenge=1158201444`,
    );
    expect(ok.status).toBe(200);
    expect(ok.text).toBe('1158201444');
    const wrong = await client(base).get(`/webhooks/whatsapp/${phone}?hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1`);
    expect(wrong.status).toBe(401);
    // Chatwoot's `error` inside the service's error body.
    expect(wrong.body).toEqual({
      error: 'Error; wrong verify token',
      description: 'Error; wrong verify token',
      errors: [{ field: 'hub.verify_token', message: 'Error; wrong verify token', code: 'invalid' }],
    });
  });

  it('stores a text as an incoming message of a new contact and conversation, announced to the account webhook; a retried webhook creates nothing twice', async () => {
    const from = customer();
    const id = wamid();
    const body = payload(from, 'Ana Souza', { id, type: 'text', text: { body: 'Oi, tudo bem?' } });
    const first = await post(body);
    expect(first.status).toBe(200);
    expect(first.text).toBe('');
    expect((await post(body)).status).toBe(200);
    const c = await conversationOfContact(from);
    expect(c.status).toBe('open');
    expect(c.meta.sender).toMatchObject({ name: 'Ana Souza', phone_number: `+${from}` });
    expect(c.can_reply).toBe(true);
    const m = await messageBySource(c.id, id);
    expect(m).toMatchObject({ content: 'Oi, tudo bem?', message_type: 0, sender_type: 'Contact', status: 'sent', private: false });
    await hook.waitFor(3);
    await until(
      () =>
        events('message_created', (j) => j.source_id === id).length === 1 &&
        events('conversation_created', (j) => j.id === c.id).length === 1,
    );
    expect(events('contact_created', (j) => j.phone_number === `+${from}`)).toHaveLength(1);
    const created = events('message_created', (j) => j.source_id === id)[0].json;
    expect(created).toMatchObject({
      message_type: 'incoming',
      content: 'Oi, tudo bem?',
      sender: { name: 'Ana Souza', phone_number: `+${from}` },
    });
    // The retry is dropped: one message, however long one waits for a second.
    const follow = wamid();
    await post(payload(from, 'Ana Souza', { id: follow, type: 'text', text: { body: 'depois' } }));
    await messageBySource(c.id, follow);
    expect((await messagesOf(c.id)).filter((x) => x.source_id === id)).toHaveLength(1);
  });

  it('after a resolve starts a new conversation; with lock_to_single_conversation reopens the last one', async () => {
    const from = customer();
    await post(payload(from, 'Gil', { id: wamid(), type: 'text', text: { body: 'first' } }));
    const first = await conversationOfContact(from);
    expect((await s.admin.api.post(`${s.base}/conversations/${first.id}/toggle_status`, { status: 'resolved' })).status).toBe(200);
    const next = wamid();
    await post(payload(from, 'Gil', { id: next, type: 'text', text: { body: 'second' } }));
    const second = await until(async () =>
      (await conversationsOf()).find((c) => c.meta.sender.phone_number === `+${from}` && c.id !== first.id),
    );
    expect(second.status).toBe('open');
    await messageBySource(second.id, next);

    expect((await s.admin.api.patch(`${s.base}/inboxes/${inboxId}`, { lock_to_single_conversation: true })).status).toBe(200);
    try {
      expect((await s.admin.api.post(`${s.base}/conversations/${second.id}/toggle_status`, { status: 'resolved' })).status).toBe(200);
      const third = wamid();
      await post(payload(from, 'Gil', { id: third, type: 'text', text: { body: 'third' } }));
      await messageBySource(second.id, third);
      const reopened = (await conversationsOf()).find((c) => c.id === second.id);
      expect(reopened.status).toBe('open');
      expect((await conversationsOf()).filter((c) => c.meta.sender.phone_number === `+${from}`)).toHaveLength(2);
    } finally {
      await s.admin.api.patch(`${s.base}/inboxes/${inboxId}`, { lock_to_single_conversation: false });
    }
  });

  it('refuses a bad or missing signature with 401 and stores nothing', async () => {
    const from = customer();
    const bad = wamid();
    const body = payload(from, 'Eve', { id: bad, type: 'text', text: { body: 'forged' } });
    const wrong = await post(body, sign(body, 'not-the-secret'));
    expect(wrong.status).toBe(401);
    expect((await post(body, null as never)).status).toBe(401);
    // The same contact's next (genuine) webhook is processed after anything queued before it.
    const good = wamid();
    await post(payload(from, 'Eve', { id: good, type: 'text', text: { body: 'genuine' } }));
    const c = await conversationOfContact(from);
    await messageBySource(c.id, good);
    expect((await messagesOf(c.id)).map((m) => m.content)).toEqual(['genuine']);
  });

  it('downloads an image into the attachments store, served by data_url; a location, an interactive reply; a reaction is not stored', async () => {
    const from = customer();
    const image = wamid();
    await post(
      payload(from, 'Bo', {
        id: image,
        type: 'image',
        image: { id: 'media-1', mime_type: 'image/png', sha256: 'x', caption: 'the receipt' },
      }),
    );
    const c = await conversationOfContact(from);
    const m = await messageBySource(c.id, image);
    expect(m.content).toBe('the receipt');
    expect(m.attachments).toHaveLength(1);
    expect(m.attachments[0]).toMatchObject({ file_type: 'image', file_size: PNG.length });
    const file = await fetch(m.attachments[0].data_url);
    expect(file.status).toBe(200);
    expect(Buffer.from(await file.arrayBuffer()).equals(PNG)).toBe(true);

    const place = wamid();
    await post(
      payload(from, 'Bo', {
        id: place,
        type: 'location',
        location: { latitude: -23.55052, longitude: -46.633308, name: 'Praça da Sé', address: 'São Paulo', url: 'https://maps.example/se' },
      }),
    );
    const loc = await messageBySource(c.id, place);
    expect(loc.content).toBeNull();
    expect(loc.attachments[0]).toMatchObject({
      file_type: 'location',
      coordinates_lat: -23.55052,
      coordinates_long: -46.633308,
      fallback_title: 'Praça da Sé, São Paulo',
      data_url: 'https://maps.example/se',
    });

    const reply = wamid();
    await post(
      payload(from, 'Bo', {
        id: reply,
        type: 'interactive',
        context: { from: phone.slice(1), id: 'wamid.unknown' },
        interactive: { type: 'button_reply', button_reply: { id: 'yes', title: 'Yes, please' } },
      }),
    );
    expect(await messageBySource(c.id, reply)).toMatchObject({
      content: 'Yes, please',
      content_attributes: { in_reply_to: null, in_reply_to_external_id: null },
    });
    // A reply to a message of the conversation keeps both ids (Chatwoot's InReplyToMessageBuilder).
    const quoting = wamid();
    await post(payload(from, 'Bo', { id: quoting, type: 'text', text: { body: 'about that' }, context: { from, id: place } }));
    const quoted = await messageBySource(c.id, quoting);
    expect(quoted.content_attributes).toEqual({ in_reply_to: loc.id, in_reply_to_external_id: place });

    const reaction = wamid();
    await post(payload(from, 'Bo', { id: reaction, type: 'reaction', reaction: { message_id: reply, emoji: '👍' } }));
    const after = wamid();
    await post(payload(from, 'Bo', { id: after, type: 'text', text: { body: 'after the reaction' } }));
    await messageBySource(c.id, after);
    expect((await messagesOf(c.id)).some((x) => x.source_id === reaction)).toBe(false);
  });

  it('sends the inbox’s token with a payload’s media link only to the provider’s own host, never to another server', async () => {
    const elsewhere = await startFakeProvider();
    try {
      elsewhere.on('GET', /^\/pic\.png$/, () => ({ body: PNG, headers: { 'content-type': 'image/png' } }));
      const from = customer();
      const foreign = wamid();
      await post(payload(from, 'Cy', { id: foreign, type: 'image', image: { link: `${elsewhere.url}/pic.png`, caption: 'foreign' } }));
      const c = await conversationOfContact(from);
      const m = await messageBySource(c.id, foreign);
      const [req] = await elsewhere.waitFor((r) => r.path === '/pic.png');
      expect(req.headers.authorization).toBeUndefined();
      expect(req.headers['d360-api-key']).toBeUndefined();
      // Fetched without credentials, the file is still stored (a public link works so).
      expect(m.attachments).toMatchObject([{ file_type: 'image', file_size: PNG.length }]);

      const own = wamid();
      await post(payload(from, 'Cy', { id: own, type: 'image', image: { link: `${graph.url}/files/own-link`, caption: 'own' } }));
      expect((await messageBySource(c.id, own)).attachments).toMatchObject([{ file_type: 'image', file_size: PNG.length }]);
      const [ownReq] = await graph.waitFor((r) => r.path === '/files/own-link');
      expect(ownReq.headers.authorization).toBe('Bearer cloud-token');
    } finally {
      await elsewhere.close();
    }
  });

  it('stores a media message whose file cannot be had without the file (Chatwoot’s way), after retrying a provider 5xx a bounded number of times', async () => {
    // Meta no longer has the media: the message is the contact's all the same, with no file and no text.
    graph.on('GET', /^\/v13\.0\/gone-[\w-]+$/, () => ({ status: 404, json: { error: { message: 'Unsupported get request', code: 100 } } }));
    // A brief outage: the metadata answers 500 once, the file 503 once; both are tried again.
    graph.on('GET', /^\/v13\.0\/flaky-[\w-]+$/, (_req, n) =>
      n === 1
        ? { status: 500, json: { error: { message: 'try later' } } }
        : { json: { url: `${graph.url}/shaky/file.png`, mime_type: 'image/png' } },
    );
    graph.on('GET', /^\/shaky\//, (_req, n) => (n === 1 ? { status: 503 } : { body: PNG, headers: { 'content-type': 'image/png' } }));
    // A lasting outage of the file's host: three attempts, then the message without it.
    graph.on('GET', /^\/v13\.0\/down-[\w-]+$/, () => ({ json: { url: `${graph.url}/down/file.png`, mime_type: 'image/png' } }));
    graph.on('GET', /^\/down\//, () => ({ status: 502 }));

    const from = customer();
    const gone = wamid();
    await post(payload(from, 'Flo', { id: gone, type: 'image', image: { id: 'gone-1', mime_type: 'image/jpeg', sha256: 'x' } }));
    const c = await conversationOfContact(from);
    const empty = await messageBySource(c.id, gone);
    expect(empty).toMatchObject({ content: null, message_type: 0, sender_type: 'Contact' });
    // No file: no attachments in the message JSON (Chatwoot shows the key only when there are some).
    expect(empty).not.toHaveProperty('attachments');
    await until(() => events('message_created', (j) => j.source_id === gone).length === 1);
    expect(graph.requests.filter((r) => r.path === '/v13.0/gone-1')).toHaveLength(1);

    const flaky = wamid();
    await post(payload(from, 'Flo', { id: flaky, type: 'image', image: { id: 'flaky-1', mime_type: 'image/png', caption: 'second try' } }));
    const kept = await messageBySource(c.id, flaky);
    expect(kept.content).toBe('second try');
    expect(kept.attachments).toHaveLength(1);
    expect(kept.attachments[0]).toMatchObject({ file_type: 'image', file_size: PNG.length });
    expect(graph.requests.filter((r) => r.path === '/v13.0/flaky-1')).toHaveLength(2);
    expect(graph.requests.filter((r) => r.path === '/shaky/file.png')).toHaveLength(2);

    const down = wamid();
    await post(payload(from, 'Flo', { id: down, type: 'document', document: { id: 'down-1', filename: 'x.pdf', caption: 'the file' } }));
    const without = await messageBySource(c.id, down);
    expect(without.content).toBe('the file');
    expect(without).not.toHaveProperty('attachments');
    expect(graph.requests.filter((r) => r.path === '/down/file.png')).toHaveLength(3);
    // The contact's next message follows as usual (nothing is stuck in its queue group).
    const next = wamid();
    await post(payload(from, 'Flo', { id: next, type: 'text', text: { body: 'did you get it?' } }));
    await messageBySource(c.id, next);
    expect((await messagesOf(c.id)).map((m) => m.source_id)).toEqual([gone, flaky, down, next]);
  });

  it('sends an agent’s reply with Chatwoot’s body, saves the provider id, and applies delivered then read (a late delivered is ignored)', async () => {
    const from = customer();
    await post(payload(from, 'Cy', { id: wamid(), type: 'text', text: { body: 'hello?' } }));
    const c = await conversationOfContact(from);
    const before = graph.requests.length;
    const r = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'Hi **there**, see _this_' });
    expect(r.status).toBe(200);
    const [req] = await graph.waitFor((x) => x.method === 'POST' && x.json?.to === from);
    expect(graph.requests.indexOf(req)).toBeGreaterThanOrEqual(before);
    expect(req.path).toBe(`/v13.0/${PHONE_NUMBER_ID}/messages`);
    expect(req.headers.authorization).toBe('Bearer cloud-token');
    expect(req.json).toEqual({
      messaging_product: 'whatsapp',
      context: null,
      to: from,
      text: { body: 'Hi *there*, see _this_' },
      type: 'text',
    });
    const saved = await untilState(
      async () => (await messagesOf(c.id)).find((m) => m.id === r.body.id),
      (m) => typeof m?.source_id === 'string',
    );
    const providerId = saved.source_id as string;
    expect(providerId).toMatch(/^wamid\.OUT\d+$/);
    await until(() => events('message_updated', (j) => j.id === r.body.id && j.source_id === providerId).length > 0);

    await post(statusPayload(providerId, 'delivered', from));
    await untilState(
      async () => (await messagesOf(c.id)).find((m) => m.id === r.body.id),
      (m) => m.status === 'delivered',
    );
    await post(statusPayload(providerId, 'read', from));
    await untilState(
      async () => (await messagesOf(c.id)).find((m) => m.id === r.body.id),
      (m) => m.status === 'read',
    );
    await post(statusPayload(providerId, 'delivered', from));
    // Processed in order after the late `delivered` (same status group): the message stays read.
    const probe = wamid();
    await post(payload(from, 'Cy', { id: probe, type: 'text', text: { body: 'probe' } }));
    await messageBySource(c.id, probe);
    expect((await messagesOf(c.id)).find((m) => m.id === r.body.id).status).toBe('read');
    expect(events('message_updated', (j) => j.id === r.body.id).length).toBeGreaterThanOrEqual(3);
  });

  it('applies a status that overtook the answer to our send once the send is recorded (looked at again, not dropped)', async () => {
    const from = customer();
    await post(payload(from, 'Ed', { id: wamid(), type: 'text', text: { body: 'hi' } }));
    const c = await conversationOfContact(from);
    const early = `wamid.EARLY${Date.now().toString(36)}`;
    graph.on('POST', /^\/v13\.0\/\d+\/messages$/, (req) => ({
      json: { messages: [{ id: req.json?.to === from ? early : `wamid.OUT${++sent}` }] },
    }));
    // Meta's status for the id, with a message of the contact after it in the same payload: once that message is
    // stored, the status was handled while no message had its id.
    const probe = wamid();
    const both = JSON.parse(statusPayload(early, 'delivered', from));
    both.entry[0].changes[0].value.contacts = [{ profile: { name: 'Ed' }, wa_id: from }];
    both.entry[0].changes[0].value.messages = [
      { from, id: probe, timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: 'probe' } },
    ];
    expect((await post(JSON.stringify(both))).status).toBe(200);
    await messageBySource(c.id, probe);
    const r = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'reply' });
    expect(r.status).toBe(200);
    const done = await untilState(
      async () => (await messagesOf(c.id)).find((m) => m.id === r.body.id),
      (m) => m.status === 'delivered',
      30_000,
    );
    expect(done.source_id).toBe(early);
    expect((await messagesOf(c.id)).filter((m) => m.source_id === probe)).toHaveLength(1);
  });

  it('a retry of a message that did not fail changes nothing: a read message stays read, its attributes kept', async () => {
    const from = customer();
    await post(payload(from, 'Gil', { id: wamid(), type: 'text', text: { body: 'hi' } }));
    const c = await conversationOfContact(from);
    const incoming = (await messagesOf(c.id))[0];
    const r = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, {
      content: 'answer',
      content_attributes: { in_reply_to: incoming.id },
    });
    expect(r.status).toBe(200);
    const sentMsg = await untilState(
      async () => (await messagesOf(c.id)).find((m) => m.id === r.body.id),
      (m) => typeof m?.source_id === 'string',
    );
    await post(statusPayload(sentMsg.source_id, 'read', from));
    await untilState(
      async () => (await messagesOf(c.id)).find((m) => m.id === r.body.id),
      (m) => m.status === 'read',
    );
    const retried = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages/${r.body.id}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ id: r.body.id, status: 'read', content_attributes: { in_reply_to: incoming.id } });
    const after = (await messagesOf(c.id)).find((m) => m.id === r.body.id);
    expect(after).toMatchObject({ status: 'read', source_id: sentMsg.source_id, content_attributes: { in_reply_to: incoming.id } });
  });

  it('outside the 24-hour window fails a free-form message and sends a template', async () => {
    const from = customer();
    const contact = await s.admin.api.post(`${s.base}/contacts`, { name: 'Dee', phone_number: `+${from}` });
    expect(contact.status).toBe(200);
    const conv = await s.admin.api.post(`${s.base}/conversations`, { inbox_id: inboxId, contact_id: contact.body.payload.contact.id });
    expect(conv.status).toBe(200);
    expect(conv.body.can_reply).toBe(false);
    const free = await s.admin.api.post(`${s.base}/conversations/${conv.body.id}/messages`, { content: 'are you there?' });
    const failed = await untilState(
      async () => (await messagesOf(conv.body.id)).find((m) => m.id === free.body.id),
      (m) => m.status === 'failed',
    );
    expect(failed.content_attributes.external_error).toBe('Template not found or invalid template name');
    const template = await s.admin.api.post(`${s.base}/conversations/${conv.body.id}/messages`, {
      content: 'Your order shipped',
      template_params: {
        name: 'order_update',
        category: 'UTILITY',
        language: 'en_US',
        processed_params: { body: { '1': 'John', '2': '#123' } },
      },
    });
    expect(template.status).toBe(200);
    const [req] = await graph.waitFor((x) => x.method === 'POST' && x.json?.to === from && x.json?.type === 'template');
    expect(req.json).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: from,
      type: 'template',
      template: { name: 'order_update', language: { policy: 'deterministic', code: 'en_US' }, components: [] },
    });
    await untilState(
      async () => (await messagesOf(conv.body.id)).find((m) => m.id === template.body.id),
      (m) => !!m.source_id,
    );
    expect(graph.requests.some((x) => x.json?.to === from && x.json?.type === 'text')).toBe(false);
  });

  it('retries a provider 500, fails on a 400 with the provider’s text, and sends again on retry', async () => {
    const from = customer();
    await post(payload(from, 'Flo', { id: wamid(), type: 'text', text: { body: 'hi' } }));
    const c = await conversationOfContact(from);
    let calls = 0;
    graph.on('POST', /^\/v13\.0\/\d+\/messages$/, (req) => {
      if (req.json?.to !== from) return { json: { messages: [{ id: `wamid.OUT${++sent}` }] } };
      calls++;
      if (calls === 1) return { status: 500, json: { error: { message: 'temporary' } } };
      if (calls === 2) return { json: { messages: [{ id: `wamid.FLO${calls}` }] } };
      if (calls === 3)
        return { status: 400, json: { error: { message: '(#131030) Recipient phone number not in allowed list', code: 131030 } } };
      return { json: { messages: [{ id: `wamid.FLO${calls}` }] } };
    });
    const first = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'one' });
    const one = await untilState(
      async () => (await messagesOf(c.id)).find((m) => m.id === first.body.id),
      (m) => !!m.source_id,
      40_000,
    );
    expect(one.source_id).toBe('wamid.FLO2');
    expect(calls).toBe(2);

    const second = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'two' });
    const refused = await untilState(
      async () => (await messagesOf(c.id)).find((m) => m.id === second.body.id),
      (m) => m.status === 'failed',
    );
    expect(refused.content_attributes.external_error).toBe('(#131030) Recipient phone number not in allowed list');
    expect(refused.source_id).toBeNull();

    const retried = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages/${second.body.id}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ id: second.body.id, status: 'sent', content_attributes: {} });
    const resent = await untilState(
      async () => (await messagesOf(c.id)).find((m) => m.id === second.body.id),
      (m) => !!m.source_id,
    );
    expect(resent).toMatchObject({ source_id: 'wamid.FLO4', status: 'sent' });
    expect(calls).toBe(4);
  }, 60_000);
});
