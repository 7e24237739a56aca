import { randomInt } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db, tableName } from '#shared/db/client.ts';
import * as keys from '#shared/db/keys.ts';
import { isSealed } from '#shared/crypto/tokens.ts';
import { overrideEnv } from '../../support/env.ts';
import { startFakeProvider, type FakeProvider } from '../../support/providers.ts';
import { client, expectErrorBody, runtime, seedAccount, type SeededAccount } from '../../support/runtime.ts';
import { until, untilState } from '../../support/until.ts';

// WhatsApp inboxes as an administrator creates them (Chatwoot's provider checks: Cloud lists the business
// account's templates, 360dialog registers our webhook; refused credentials are 422), their templates synced, their
// secrets sealed at rest; and 360dialog's webhooks and sends end to end against a fake.

const TEMPLATES = [
  {
    name: 'order_update',
    language: 'en_US',
    status: 'APPROVED',
    category: 'UTILITY',
    components: [{ type: 'BODY', text: 'Hi {{1}}' }],
    id: '1',
  },
  { name: 'welcome', language: 'pt_BR', status: 'APPROVED', category: 'MARKETING', components: [], id: '2' },
];

describe('WhatsApp inboxes: creation, templates, 360dialog', () => {
  let graph: FakeProvider;
  let dialog: FakeProvider;
  let s: SeededAccount;
  let base: string;
  let restoreEnv: () => void;
  const phone = () => `+1556${randomInt(1_000_000, 9_999_999)}`;
  /** Business accounts whose token Meta has revoked (their template list answers 190). */
  const revoked = new Set<string>();

  beforeAll(async () => {
    base = (await runtime()).baseUrl;
    graph = await startFakeProvider();
    // Two pages of templates for the good token; 401 for any other.
    graph.on('GET', /^\/v14\.0\/\d+\/message_templates$/, (req) => {
      if (revoked.has(req.path.split('/')[2]))
        return { status: 401, json: { error: { message: 'Error validating access token', type: 'OAuthException', code: 190 } } };
      if (req.query.get('access_token') !== 'good-token')
        return { status: 401, json: { error: { message: 'Invalid OAuth access token' } } };
      return req.query.get('after')
        ? { json: { data: [TEMPLATES[1]], paging: {} } }
        : { json: { data: [TEMPLATES[0]], paging: { next: `${graph.url}${req.path}?access_token=good-token&after=1` } } };
    });
    // The app's subscription on a business account: refused for one that does not take it.
    graph.on('POST', /^\/v22\.0\/\d+\/subscribed_apps$/, (req) =>
      req.path.includes('/4040/')
        ? { status: 400, json: { error: { message: '(#100) Invalid parameter', type: 'OAuthException', code: 100 } } }
        : { json: { success: true } },
    );
    dialog = await startFakeProvider();
    dialog.on('POST', /^\/configs\/webhook$/, (req) =>
      req.headers['d360-api-key'] === 'd360-key'
        ? { json: { url: req.json?.url } }
        : { status: 401, json: { meta: { developer_message: 'Invalid api key' } } },
    );
    dialog.on('GET', /^\/configs\/templates$/, () => ({ json: { waba_templates: [{ ...TEMPLATES[0], namespace: 'ns-1' }] } }));
    dialog.on('GET', /^\/media\/[\w-]+$/, () => ({ body: Buffer.from('%PDF-1.4 fake'), headers: { 'content-type': 'application/pdf' } }));
    dialog.on('POST', /^\/messages$/, () => ({ json: { messages: [{ id: `gBEGk${randomInt(1e6)}` }] } }));
    restoreEnv = overrideEnv({ WHATSAPP_CLOUD_BASE_URL: graph.url, DIALOG360_BASE_URL: dialog.url, FB_APP_SECRET: undefined });
    s = await seedAccount();
  }, 120_000);

  afterAll(async () => {
    restoreEnv?.();
    await graph?.close();
    await dialog?.close();
  });

  const create = (channel: Record<string, unknown>) =>
    s.admin.api.post(`${s.base}/inboxes`, { name: 'WA', channel: { type: 'whatsapp', ...channel } });

  it('creates a Cloud inbox with good credentials, its templates synced (every page), its secrets sealed at rest', async () => {
    const number = phone();
    const res = await create({
      phone_number: number,
      provider: 'whatsapp_cloud',
      provider_config: { api_key: 'good-token', phone_number_id: '1065', business_account_id: '1022' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      channel_type: 'Channel::Whatsapp',
      phone_number: number,
      provider: 'whatsapp_cloud',
      reauthorization_required: false,
      callback_webhook_url: `${base}/webhooks/whatsapp/${number}`,
      provider_config: {
        api_key: 'good-token',
        phone_number_id: '1065',
        business_account_id: '1022',
        webhook_verify_token: expect.any(String),
      },
    });
    expect(res.body.message_templates).toEqual(TEMPLATES);
    // The app is subscribed on the business account with our callback and the inbox's verify token (Chatwoot's
    // WebhookSetupService for a number set up by hand).
    const subscribed = graph.requests.filter((r) => r.method === 'POST' && r.path === '/v22.0/1022/subscribed_apps');
    expect(subscribed).toHaveLength(1);
    expect(subscribed[0].headers.authorization).toBe('Bearer good-token');
    expect(subscribed[0].json).toEqual({
      override_callback_uri: `${base}/webhooks/whatsapp/${number}`,
      verify_token: res.body.provider_config.webhook_verify_token,
    });
    // Agents see the templates, not the credentials.
    const asAgent = await s.agent.api.get(`${s.base}/inboxes/${res.body.id}`);
    if (asAgent.status === 200) expect(asAgent.body.provider_config).toBeUndefined();
    const raw = (await db().send(new GetCommand({ TableName: tableName(), Key: keys.inbox(s.accountId, res.body.id) }))).Item!;
    expect(isSealed(String(raw.provider_config.api_key))).toBe(true);
    expect(isSealed(String(raw.provider_config.webhook_verify_token))).toBe(true);
    expect(JSON.stringify(raw)).not.toContain('good-token');
  });

  it('refuses bad Cloud credentials with 422 "Provider config Invalid Credentials" and creates nothing', async () => {
    const number = phone();
    const res = await create({
      phone_number: number,
      provider: 'whatsapp_cloud',
      provider_config: { api_key: 'bad', business_account_id: '1022' },
    });
    const body = expectErrorBody(res, 422);
    expect(body.description).toBe('Provider config Invalid Credentials');
    const list = await s.admin.api.get(`${s.base}/inboxes`);
    expect(list.body.payload.some((i: { phone_number: string }) => i.phone_number === number)).toBe(false);
    // The number is still free.
    expect(
      (
        await create({
          phone_number: number,
          provider: 'whatsapp_cloud',
          provider_config: { api_key: 'good-token', business_account_id: '1' },
        })
      ).status,
    ).toBe(200);
  });

  it('syncs templates on demand; other channels answer 422', async () => {
    const res = await create({
      phone_number: phone(),
      provider: 'whatsapp_cloud',
      provider_config: { api_key: 'good-token', business_account_id: '9' },
    });
    const before = graph.requests.length;
    const sync = await s.admin.api.post(`${s.base}/inboxes/${res.body.id}/sync_templates`);
    expect(sync.status).toBe(200);
    expect(sync.body).toEqual({ message: 'Template sync initiated successfully' });
    expect(graph.requests.length).toBeGreaterThan(before);
    const api = await s.admin.api.post(`${s.base}/inboxes`, { name: 'API', channel: { type: 'api' } });
    expect(expectErrorBody(await s.admin.api.post(`${s.base}/inboxes/${api.body.id}/sync_templates`), 422).description).toBe(
      'Template sync is only available for WhatsApp channels',
    );
    expect((await s.agent.api.post(`${s.base}/inboxes/${res.body.id}/sync_templates`)).status).toBe(403);
  });

  it('creates a 360dialog inbox by registering our webhook (422 for a refused key), then takes its webhooks and sends through it', async () => {
    const number = phone();
    expectErrorBody(await create({ phone_number: number, provider: 'default', provider_config: { api_key: 'nope' } }), 422);
    const res = await create({ phone_number: number, provider: 'default', provider_config: { api_key: 'd360-key' } });
    expect(res.status).toBe(200);
    const registered = dialog.requests.filter((r) => r.path === '/configs/webhook' && r.headers['d360-api-key'] === 'd360-key');
    expect(registered.at(-1)!.json).toEqual({ url: `${base}/webhooks/whatsapp/${number}` });
    expect(res.body.message_templates).toEqual([{ ...TEMPLATES[0], namespace: 'ns-1' }]);

    // 360dialog's on-premise payload: the bare {contacts, messages}, unsigned.
    const from = `4479${randomInt(1_000_000, 9_999_999)}`;
    const id = `ABGGFlA5Fpa${randomInt(1e6)}`;
    const hook = await client(base).post(
      `/webhooks/whatsapp/${number}`,
      JSON.stringify({
        contacts: [{ profile: { name: 'Kai' }, wa_id: from }],
        messages: [
          {
            from,
            id,
            timestamp: '1700000000',
            type: 'document',
            document: { id: 'doc-1', mime_type: 'application/pdf', filename: 'invoice.pdf', caption: 'my invoice' },
          },
        ],
      }),
      { 'content-type': 'application/json' },
    );
    expect(hook.status).toBe(200);
    const conv = await until(async () => {
      const list = await s.admin.api.get(`${s.base}/conversations?inbox_id=${res.body.id}&status=all`);
      return list.body.data.payload[0];
    });
    const messages = async () => (await s.admin.api.get(`${s.base}/conversations/${conv.id}/messages`)).body.payload as any[];
    const doc = await untilState(messages, (ms) => ms.some((m) => m.source_id === id)).then((ms) => ms.find((m) => m.source_id === id));
    expect(doc).toMatchObject({ content: 'my invoice', attachments: [{ file_type: 'file', extension: 'pdf' }] });
    expect(dialog.requests.some((r) => r.path === '/media/doc-1' && r.headers['d360-api-key'] === 'd360-key')).toBe(true);

    const reply = await s.admin.api.post(`${s.base}/conversations/${conv.id}/messages`, { content: 'Got it, **thanks**' });
    const [sent] = await dialog.waitFor((r) => r.path === '/messages' && r.json?.to === from);
    expect(sent.headers['d360-api-key']).toBe('d360-key');
    expect(sent.json).toEqual({ to: from, text: { body: 'Got it, *thanks*' }, type: 'text' });
    await untilState(messages, (ms) => !!ms.find((m) => m.id === reply.body.id)?.source_id);

    // A 360dialog status (bare {statuses}) moves it.
    const sourceId = (await messages()).find((m) => m.id === reply.body.id).source_id;
    await client(base).post(
      `/webhooks/whatsapp/${number}`,
      JSON.stringify({ statuses: [{ id: sourceId, status: 'delivered', recipient_id: from }] }),
      {
        'content-type': 'application/json',
      },
    );
    await untilState(messages, (ms) => ms.find((m) => m.id === reply.body.id)?.status === 'delivered');
  });

  it('marks an inbox reauthorization_required when Meta refuses its subscription or its token, and clears it when its credentials are updated', async () => {
    const cloud = (waba: string, key = 'good-token') => ({ api_key: key, phone_number_id: '1065', business_account_id: waba });
    // The subscription refused: the inbox is made all the same, marked (Chatwoot's prompt_reauthorization!).
    const refused = await create({ phone_number: phone(), provider: 'whatsapp_cloud', provider_config: cloud('4040') });
    expect(refused.status).toBe(200);
    expect(refused.body.reauthorization_required).toBe(true);
    // An embedded-signup inbox subscribes through its own flow: nothing is asked here.
    const before = graph.requests.filter((r) => r.path.endsWith('/subscribed_apps')).length;
    const embedded = await create({
      phone_number: phone(),
      provider: 'whatsapp_cloud',
      provider_config: { ...cloud('4040'), source: 'embedded_signup' },
    });
    expect(embedded.body.reauthorization_required).toBe(false);
    expect(graph.requests.filter((r) => r.path.endsWith('/subscribed_apps')).length).toBe(before);

    // New credentials that Meta takes: checked, subscribed, the mark cleared.
    const fixed = await s.admin.api.patch(`${s.base}/inboxes/${refused.body.id}`, { channel: { provider_config: cloud('5050') } });
    expect(fixed.status).toBe(200);
    expect(fixed.body.reauthorization_required).toBe(false);
    expect(graph.requests.some((r) => r.method === 'POST' && r.path === '/v22.0/5050/subscribed_apps')).toBe(true);
    // Credentials Meta refuses are 422 and change nothing.
    const bad = await s.admin.api.patch(`${s.base}/inboxes/${refused.body.id}`, { channel: { provider_config: cloud('5050', 'bad') } });
    expect(expectErrorBody(bad, 422).description).toBe('Provider config Invalid Credentials');
    expect((await s.admin.api.get(`${s.base}/inboxes/${refused.body.id}`)).body.provider_config.api_key).toBe('good-token');

    // The token revoked at Meta: each refused template sync counts; the second marks the inbox (Chatwoot's threshold).
    revoked.add('5050');
    const sync = () => s.admin.api.post(`${s.base}/inboxes/${refused.body.id}/sync_templates`);
    expect((await sync()).status).toBe(200);
    expect((await s.admin.api.get(`${s.base}/inboxes/${refused.body.id}`)).body.reauthorization_required).toBe(false);
    await sync();
    expect((await s.admin.api.get(`${s.base}/inboxes/${refused.body.id}`)).body.reauthorization_required).toBe(true);
    // A new token for it: the mark goes.
    revoked.delete('5050');
    const renewed = await s.admin.api.patch(`${s.base}/inboxes/${refused.body.id}`, {
      channel: { provider_config: { ...cloud('5050'), phone_number_id: '1066' } },
    });
    expect(renewed.status).toBe(200);
    expect(renewed.body.reauthorization_required).toBe(false);
    // Media Meta will not describe for the token (401): each counts, as Chatwoot counts them; the messages are kept.
    graph.on('GET', /^\/v13\.0\/expired-media$/, () => ({
      status: 401,
      json: { error: { message: 'Error validating access token', type: 'OAuthException', code: 190 } },
    }));
    const number = refused.body.phone_number;
    const from = `4479${randomInt(1_000_000, 9_999_999)}`;
    const image = (id: string) =>
      client(base).post(
        `/webhooks/whatsapp/${number}`,
        JSON.stringify({
          object: 'whatsapp_business_account',
          entry: [
            {
              id: '5050',
              changes: [
                {
                  field: 'messages',
                  value: {
                    messaging_product: 'whatsapp',
                    metadata: { display_phone_number: number.slice(1), phone_number_id: '1066' },
                    contacts: [{ profile: { name: 'Ivo' }, wa_id: from }],
                    messages: [
                      { from, id, timestamp: '1700000000', type: 'image', image: { id: 'expired-media', mime_type: 'image/jpeg' } },
                    ],
                  },
                },
              ],
            },
          ],
        }),
        { 'content-type': 'application/json' },
      );
    const stored = async (id: string) =>
      until(async () => {
        const list = await s.admin.api.get(`${s.base}/conversations?inbox_id=${refused.body.id}&status=all`);
        const conv = list.body.data.payload[0];
        if (!conv) return undefined;
        const ms = (await s.admin.api.get(`${s.base}/conversations/${conv.id}/messages`)).body.payload as any[];
        return ms.find((m) => m.source_id === id);
      });
    await image('wamid.expired1');
    expect(await stored('wamid.expired1')).not.toHaveProperty('attachments');
    expect((await s.admin.api.get(`${s.base}/inboxes/${refused.body.id}`)).body.reauthorization_required).toBe(false);
    await image('wamid.expired2');
    await stored('wamid.expired2');
    await until(async () => (await s.admin.api.get(`${s.base}/inboxes/${refused.body.id}`)).body.reauthorization_required === true);

    // Other changes call nothing at Meta.
    const calls = graph.requests.length;
    expect((await s.admin.api.patch(`${s.base}/inboxes/${refused.body.id}`, { greeting_enabled: true })).status).toBe(200);
    expect(graph.requests.length).toBe(calls);
  });
});
