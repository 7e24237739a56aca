import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer } from '../../../infra/local/http-server.ts';
import { MAX_MULTIPART_BODY_BYTES } from '#shared/http/body.ts';
import { ROOT } from '../../../infra/local/runtime.ts';
import { routes } from '../../../infra/routes.ts';
import { client, expectErrorBody, runtime, type Client } from '../../support/runtime.ts';
import { newConversation, ok, world, type World } from '../conversations/fixtures.ts';
import { apiInbox, publicContact, publicConversation } from '../public/fixtures.ts';
import { openWidget, widgetInbox } from '../widget/fixtures.ts';

// Every route that parses uploads, fed the truncated-multipart family an attacker (or a flaky network)
// sends: each answers 4xx in the error body, with or without a credential, and the service keeps serving.

const BOUNDARY = 'XyZzY0123456789';
const CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;
const fileHead = (name: string) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`;

interface Junk {
  name: string;
  body: (fileField: string) => Buffer;
  contentType?: string;
  /** Status with a credential that may call the route. */
  status: 400 | 413;
}

const FAMILY: Junk[] = [
  { name: 'file part without closing boundary', body: (f) => Buffer.from(`${fileHead(f)}\x89PNG half a file`), status: 400 },
  {
    name: 'field then file part without closing boundary',
    body: (f) =>
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n${fileHead(f)}abc\r\n--${BOUNDARY.slice(0, 5)}`,
      ),
    status: 400,
  },
  { name: 'cut inside part headers', body: () => Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-da`), status: 400 },
  {
    name: 'malformed part header',
    body: () => Buffer.from(`--${BOUNDARY}\r\n\x00\x01 nonsense\r\n\r\nx\r\n--${BOUNDARY}--\r\n`),
    status: 400,
  },
  {
    name: 'boundary mismatch',
    body: (f) => Buffer.from(`${fileHead(f).replace(BOUNDARY, 'OTHERBOUNDARY')}data\r\n--OTHERBOUNDARY--\r\n`),
    status: 400,
  },
  {
    name: 'no boundary at all',
    contentType: 'multipart/form-data',
    body: (f) => Buffer.from(`${fileHead(f)}x\r\n--${BOUNDARY}--\r\n`),
    status: 400,
  },
  {
    name: '10,000 empty parts',
    body: () => Buffer.from(`${`--${BOUNDARY}\r\nContent-Disposition: form-data\r\n\r\n\r\n`.repeat(10_000)}--${BOUNDARY}--\r\n`),
    status: 413,
  },
  {
    name: '10,000 parts without headers',
    body: () => Buffer.from(`${`--${BOUNDARY}\r\n\r\n\r\n`.repeat(10_000)}--${BOUNDARY}--\r\n`),
    status: 400,
  },
  {
    name: '10,000 tiny fields',
    body: () =>
      Buffer.from(`${`--${BOUNDARY}\r\nContent-Disposition: form-data; name="a[]"\r\n\r\nx\r\n`.repeat(10_000)}--${BOUNDARY}--\r\n`),
    status: 413,
  },
  {
    name: 'a file part larger than the limit',
    body: (f) =>
      Buffer.concat([Buffer.from(fileHead(f)), Buffer.alloc(MAX_MULTIPART_BODY_BYTES + 100, 0x61), Buffer.from(`\r\n--${BOUNDARY}--\r\n`)]),
    status: 413,
  },
];

interface UploadRoute {
  method: string;
  /** Made-up ids: nothing of this exists. */
  junkPath: string;
  /** Real ids the credential may use. */
  realPath: (w: Fixture) => string;
  fileField: string;
  /** The public and widget routes have no account credential: the identifiers in the path (or the query) are it. */
  anonymous?: boolean;
  /** Headers that identify the caller where `anonymous` routes have them (the widget's X-Auth-Token). */
  headers?: (f: Fixture) => Record<string, string>;
}

interface Fixture {
  w: World;
  conversationId: number;
  messageId: number;
  publicPath: string;
  widget: { path: string; token: string };
}

const ROUTES: UploadRoute[] = [
  {
    method: 'POST',
    junkPath: '/public/api/v1/inboxes/nope/contacts/nobody/conversations/999999/messages',
    realPath: (f) => f.publicPath,
    fileField: 'attachments[]',
    anonymous: true,
  },
  {
    method: 'POST',
    junkPath: '/api/v1/accounts/999999/conversations/999999/messages',
    realPath: (f) => `${f.w.s.base}/conversations/${f.conversationId}/messages`,
    fileField: 'attachments[]',
  },
  { method: 'POST', junkPath: '/api/v1/accounts/999999/contacts', realPath: (f) => `${f.w.s.base}/contacts`, fileField: 'avatar' },
  {
    method: 'PATCH',
    junkPath: '/api/v1/accounts/999999/contacts/999999',
    realPath: (f) => `${f.w.s.base}/contacts/${f.w.contact.id}`,
    fileField: 'avatar',
  },
  {
    method: 'PUT',
    junkPath: '/api/v1/accounts/1/contacts/1',
    realPath: (f) => `${f.w.s.base}/contacts/${f.w.contact.id}`,
    fileField: 'avatar',
  },
  {
    method: 'POST',
    junkPath: '/api/v1/accounts/999999/contacts/import',
    realPath: (f) => `${f.w.s.base}/contacts/import`,
    fileField: 'import_file',
  },
  { method: 'POST', junkPath: '/api/v1/accounts/999999/inboxes', realPath: (f) => `${f.w.s.base}/inboxes`, fileField: 'avatar' },
  {
    method: 'PATCH',
    junkPath: '/api/v1/accounts/999999/inboxes/999999',
    realPath: (f) => `${f.w.s.base}/inboxes/${f.w.inbox.id}`,
    fileField: 'avatar',
  },
  {
    method: 'PUT',
    junkPath: '/api/v1/accounts/1/inboxes/1',
    realPath: (f) => `${f.w.s.base}/inboxes/${f.w.inbox.id}`,
    fileField: 'avatar',
  },
  {
    method: 'PATCH',
    junkPath: '/api/v1/accounts/999999/conversations/999999/messages/999999',
    realPath: (f) => `${f.w.s.base}/conversations/${f.conversationId}/messages/${f.messageId}`,
    fileField: 'attachments[]',
  },
  {
    method: 'PUT',
    junkPath: '/api/v1/accounts/1/conversations/1/messages/1',
    realPath: (f) => `${f.w.s.base}/conversations/${f.conversationId}/messages/${f.messageId}`,
    fileField: 'attachments[]',
  },
  {
    method: 'POST',
    junkPath: '/api/v1/widget/messages?website_token=nope',
    realPath: (f) => f.widget.path,
    fileField: 'message[attachments][]',
    anonymous: true,
    headers: (f) => ({ 'X-Auth-Token': f.widget.token }),
  },
  { method: 'POST', junkPath: '/api/v1/accounts/999999/upload', realPath: (f) => `${f.w.s.base}/upload`, fileField: 'attachment' },
  { method: 'PATCH', junkPath: '/api/v1/profile', realPath: () => '/api/v1/profile', fileField: 'avatar' },
  { method: 'PUT', junkPath: '/api/v1/profile', realPath: () => '/api/v1/profile', fileField: 'avatar' },
];

describe('malformed upload bodies', () => {
  let base: string;
  let anon: Client;
  let f: Fixture;

  beforeAll(async () => {
    base = (await runtime()).baseUrl;
    anon = client(base);
    const w = await world();
    const conversation = await newConversation(w.s, { inbox_id: w.inbox.id, contact_id: w.contact.id });
    const api = await apiInbox(w.s);
    const contact = await publicContact(anon, api);
    const pub = await publicConversation(anon, api, contact.source_id);
    const message = ok(await w.s.admin.api.post(`${w.s.base}/conversations/${conversation.id}/messages`, { content: 'hello' }), 'message');
    const site = await widgetInbox(w.s);
    const visitor = await openWidget(anon, site);
    f = {
      w,
      conversationId: conversation.id,
      messageId: message.id,
      publicPath: `/public/api/v1/inboxes/${api.inbox_identifier}/contacts/${contact.source_id}/conversations/${pub.id}/messages`,
      widget: { path: `/api/v1/widget/messages?website_token=${encodeURIComponent(site.website_token)}`, token: visitor.auth_token },
    };
  }, 60_000);

  it('lists every route that parses multipart bodies', async () => {
    const { readFileSync } = await import('node:fs');
    const uploadHandlers = routes.filter((r) => readFileSync(`${ROOT}/${r.handler}`, 'utf8').includes('multipart'));
    const covered = new Set(ROUTES.map((r) => `${r.method} ${r.junkPath.split('?')[0].replace(/\/(\d+|nope|nobody)(?=\/|$)/g, '/{}')}`));
    const expected = uploadHandlers.flatMap((r) =>
      (Array.isArray(r.method) ? r.method : [r.method]).map((m) => `${m} ${r.path.replace(/\{\w+\}/g, '{}')}`),
    );
    expect([...covered].sort()).toEqual(expected.sort());
  });

  for (const route of ROUTES) {
    it(`${route.method} ${route.junkPath}: 4xx without credentials for every malformed body`, async () => {
      for (const junk of FAMILY) {
        const res = await anon.request(route.method, route.junkPath, junk.body(route.fileField), {
          'content-type': junk.contentType ?? CONTENT_TYPE,
        });
        const status = res.status;
        expect(status, `${junk.name}: ${res.text}`).toBeGreaterThanOrEqual(400);
        expect(status, `${junk.name}: ${res.text}`).toBeLessThan(500);
        expectErrorBody(res, status);
        // Account routes authenticate before reading the body; only the size is looked at first.
        if (!route.anonymous) expect([401, 413], junk.name).toContain(status);
      }
      expect((await anon.get('/health')).status).toBe(200);
    });

    it(`${route.method} ${route.junkPath}: 400 or 413 with a credential that may call it`, async () => {
      const api = route.anonymous ? anon : f.w.s.admin.api;
      for (const junk of FAMILY) {
        const res = await api.request(route.method, route.realPath(f), junk.body(route.fileField), {
          'content-type': junk.contentType ?? CONTENT_TYPE,
          ...route.headers?.(f),
        });
        const body = expectErrorBody(res, junk.status);
        expect(body.errors[0].code, junk.name).toBe(junk.status === 413 ? 'too_large' : 'malformed');
      }
    });
  }

  it('still parses well-formed uploads afterwards', async () => {
    const form = new FormData();
    form.append('name', 'Multipart Person');
    form.append('custom_attributes[tier]', 'gold');
    form.append('avatar', new Blob([Buffer.from('89504e470d0a1a0a', 'hex')], { type: 'image/png' }), 'a.png');
    const res = ok(await f.w.s.admin.api.post(`${f.w.s.base}/contacts`, form), 'multipart contact');
    expect(res.payload.contact).toMatchObject({ name: 'Multipart Person', custom_attributes: { tier: 'gold' } });
    expect(res.payload.contact.thumbnail).toMatch(/^http/);
  });

  describe('a body that stalls', () => {
    let server: Server;
    let port: number;
    beforeAll(async () => {
      await runtime();
      server = createHttpServer(ROOT, routes, { bodyTimeoutMs: 300 });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    });

    /** Sends the headers and the start of the body, then nothing more. */
    const stall = (method: string, path: string, headers: Record<string, string>) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = httpRequest({
          host: '127.0.0.1',
          port,
          method,
          path,
          headers: { 'content-type': CONTENT_TYPE, 'content-length': '100000', ...headers },
        });
        req.on('response', (res) => {
          let text = '';
          res.on('data', (d) => (text += String(d)));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.write(fileHead('avatar'));
        req.write('the first bytes of a file');
      });

    it('answers 408 in the error body on every upload route, with or without a credential', async () => {
      for (const route of ROUTES) {
        for (const headers of [{}, route.anonymous ? {} : { api_access_token: f.w.s.admin.token }] as Record<string, string>[]) {
          const path = Object.keys(headers).length ? route.realPath(f) : route.junkPath;
          const res = await stall(route.method, path, headers);
          expect(res.status, `${route.method} ${path}`).toBe(408);
          expect(JSON.parse(res.text)).toMatchObject({ description: expect.any(String), errors: [{ field: '', code: 'timeout' }] });
        }
      }
      expect((await client(`http://127.0.0.1:${port}`).get('/health')).status).toBe(200);
      expect((await anon.get('/health')).status).toBe(200);
    });
  });
});
