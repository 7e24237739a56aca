import { generateKeyPairSync, verify } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overrideEnv } from '../../support/env.ts';
import { expectErrorBody, seedAccount, type SeededAccount } from '../../support/runtime.ts';
import { newConversation, newInbox, ok, world, type World } from '../conversations/fixtures.ts';

// The mobile app's "translate" on a message (Chatwoot's MessagesController#translate) through the
// google_translate integration. Google is a fake on 127.0.0.1 that checks what Google checks: the
// service account's JWT (signed with its private key) for a token, then that token on translateText.

interface Seen {
  tokenRequests: number;
  translations: { project: string; body: any; auth: string | undefined }[];
}

function fakeGoogle(publicKey: string, seen: Seen, opts: { failTranslate?: () => boolean }) {
  return createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.url === '/token') {
        const form = new URLSearchParams(raw);
        const [h, c, sig] = String(form.get('assertion')).split('.');
        const good =
          form.get('grant_type') === 'urn:ietf:params:oauth:grant-type:jwt-bearer' &&
          verify('RSA-SHA256', Buffer.from(`${h}.${c}`), publicKey, Buffer.from(sig ?? '', 'base64url'));
        const claims = good ? JSON.parse(Buffer.from(c, 'base64url').toString()) : {};
        if (
          !good ||
          claims.scope !== 'https://www.googleapis.com/auth/cloud-translation' ||
          claims.iss !== 'translator@p-1.iam.gserviceaccount.com'
        ) {
          return send(400, { error: 'invalid_grant', error_description: 'Invalid JWT signature.' });
        }
        seen.tokenRequests++;
        return send(200, { access_token: 'ya29.fake-token', expires_in: 3599, token_type: 'Bearer' });
      }
      const m = /^\/v3\/projects\/([^/:]+):translateText$/.exec(req.url ?? '');
      if (m && req.method === 'POST') {
        const body = JSON.parse(raw);
        seen.translations.push({ project: m[1], body, auth: req.headers.authorization });
        if (req.headers.authorization !== 'Bearer ya29.fake-token')
          return send(401, { error: { code: 401, message: 'Request had invalid authentication credentials.' } });
        if (opts.failTranslate?.())
          return send(403, {
            error: { code: 403, message: 'Cloud Translation API has not been used in project p-1 before or it is disabled.' },
          });
        return send(200, {
          translations: [{ translatedText: `[${body.targetLanguageCode}] ${body.contents[0]}`, detectedLanguageCode: 'en' }],
        });
      }
      send(404, { error: { message: 'not found' } });
    });
  });
}

describe('translate a message (google_translate integration)', () => {
  let w: World;
  let s: SeededAccount;
  let server: Server;
  const seen: Seen = { tokenRequests: 0, translations: [] };
  let failing = false;
  let restoreEnv: () => void;
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const credentials = {
    type: 'service_account',
    project_id: 'p-1',
    client_email: 'translator@p-1.iam.gserviceaccount.com',
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    // What a real key file holds; never called (only the configured endpoint is).
    token_uri: 'http://169.254.169.254/latest/meta-data/',
  };

  beforeAll(async () => {
    w = await world();
    s = w.s;
    server = fakeGoogle(publicKey.export({ type: 'spki', format: 'pem' }).toString(), seen, { failTranslate: () => failing });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    restoreEnv = overrideEnv({ GOOGLE_OAUTH_TOKEN_URL: `${base}/token`, GOOGLE_TRANSLATE_URL: base });
  });
  afterAll(async () => {
    restoreEnv?.();
    await new Promise((r) => server.close(r));
  });

  const translate = (conv: number, msg: number, body: unknown, api = s.admin.api, base = s.base) =>
    api.post(`${base}/conversations/${conv}/messages/${msg}/translate`, body);

  it('answers null without the integration, then translates through Google once and reads the translation back', async () => {
    const c = await newConversation(s, {
      inbox_id: w.inbox.id,
      contact_id: w.contact.id,
      message: { content: 'Hello, where is my order?' },
    });
    const msgs = ok(await s.admin.api.get(`${s.base}/conversations/${c.id}/messages`), 'messages').payload;
    const m = msgs[msgs.length - 1];
    expect(ok(await translate(c.id, m.id, { target_language: 'pt_BR' }), 'no hook')).toEqual({ content: null });
    expect(seen.translations).toHaveLength(0);

    ok(
      await s.admin.api.post(`${s.base}/integrations/hooks`, { app_id: 'google_translate', settings: { project_id: 'p-1', credentials } }),
      'hook',
    );
    const first = ok(await translate(c.id, m.id, { target_language: 'pt_BR' }), 'translate');
    expect(first).toEqual({ content: '[pt-BR] Hello, where is my order?' });
    expect(seen.translations).toHaveLength(1);
    expect(seen.translations[0]).toMatchObject({
      project: 'p-1',
      auth: 'Bearer ya29.fake-token',
      body: { contents: ['Hello, where is my order?'], targetLanguageCode: 'pt-BR', mimeType: 'text/plain' },
    });

    // Kept on the message: the agent's app reads it back without asking Google again.
    const again = ok(await translate(c.id, m.id, { target_language: 'pt_BR' }), 'again');
    expect(again).toEqual(first);
    expect(seen.translations).toHaveLength(1);
    const stored = ok(await s.admin.api.get(`${s.base}/conversations/${c.id}/messages`), 'messages').payload.find(
      (x: { id: number }) => x.id === m.id,
    );
    expect(stored.content_attributes.translations).toEqual({ pt_BR: '[pt-BR] Hello, where is my order?' });
    expect(stored.content).toBe('Hello, where is my order?');

    // Another language: a new call, the same token (kept until it expires).
    expect(ok(await translate(c.id, m.id, { target_language: 'es' }), 'es')).toEqual({ content: '[es] Hello, where is my order?' });
    expect(seen.tokenRequests).toBe(1);
    expect(seen.translations).toHaveLength(2);
  });

  it('refuses bad requests and foreign callers, and answers Google’s refusal with 422 in the error body', async () => {
    // An inbox the agent is no member of.
    const inbox = await newInbox(s);
    const c = await newConversation(s, { inbox_id: inbox.id, contact_id: w.contact.id, message: { content: 'Bonjour' } });
    const m = ok(await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'Thanks!' }), 'message');
    expect(expectErrorBody(await translate(c.id, m.id, {}), 422).errors[0].field).toBe('target_language');
    expect(expectErrorBody(await translate(c.id, m.id, { target_language: 'pt BR; drop' }), 422).errors[0].field).toBe('target_language');
    expectErrorBody(await translate(c.id, 999_999_999, { target_language: 'de' }), 404);
    const other = await seedAccount();
    expectErrorBody(await translate(c.id, m.id, { target_language: 'de' }, other.admin.api, other.base), 404);
    // An agent outside the conversation's inbox does not see it.
    expectErrorBody(await translate(c.id, m.id, { target_language: 'de' }, s.agent.api), 404);

    failing = true;
    const refused = expectErrorBody(await translate(c.id, m.id, { target_language: 'de' }), 422);
    expect(refused.errors[0]).toMatchObject({
      code: 'translation_failed',
      message: expect.stringContaining('Cloud Translation API has not been used'),
    });
    failing = false;
    const stored = ok(await s.admin.api.get(`${s.base}/conversations/${c.id}/messages`), 'messages').payload.find(
      (x: { id: number }) => x.id === m.id,
    );
    expect(stored.content_attributes.translations).toBeUndefined();
  });
});
