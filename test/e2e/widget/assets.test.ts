import { get } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { chatScript, chatStyles, sdk } from '../../../web/widget/dist/assets.ts';
import { runtime, seedAccount, type Client } from '../../support/runtime.ts';
import { browser, widgetInbox, type WidgetInbox } from './fixtures.ts';

// The widget's files as a browser fetches them: the loader at Chatwoot's URL, the chat page naming its
// content-hashed assets, each with the caching it needs; gzip when the browser asks for it.

describe('widget files', () => {
  let api: Client;
  let inbox: WidgetInbox;
  let baseUrl: string;

  beforeAll(async () => {
    baseUrl = (await runtime()).baseUrl;
    api = await browser();
    inbox = await widgetInbox(await seedAccount());
  });

  it('GET /packs/js/sdk.js: the loader, cached for minutes, gzip on request', async () => {
    const plain = await api.get('/packs/js/sdk.js', { 'accept-encoding': 'identity' });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(plain.headers.get('cache-control')).toBe('public, max-age=300');
    expect(plain.text).toBe(sdk.body);
    expect(plain.text).toContain('chatwootSDK');

    // Raw bytes (fetch would inflate them itself).
    const zipped = await new Promise<{ encoding?: string; body: Buffer }>((resolve, reject) => {
      get(`${baseUrl}/packs/js/sdk.js`, { headers: { 'accept-encoding': 'gzip, deflate, br' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) }));
      }).on('error', reject);
    });
    expect(zipped.encoding).toBe('gzip');
    expect(gunzipSync(zipped.body).toString()).toBe(sdk.body);
  });

  it('GET /widget: the chat page naming the hashed assets; 404 for an unknown website token', async () => {
    const page = await api.get(`/widget?website_token=${inbox.website_token}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.text).toContain(`/widget/assets/${chatScript.name}`);
    expect(page.text).toContain(`/widget/assets/${chatStyles.name}`);
    expect((await api.get('/widget?website_token=nope')).status).toBe(404);
    expect((await api.get('/widget')).status).toBe(404);
  });

  it('GET /widget/assets/{file}: immutable, only the current build', async () => {
    for (const a of [chatScript, chatStyles]) {
      const res = await api.get(`/widget/assets/${a.name}`, { 'accept-encoding': 'identity' });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.text).toBe(a.body);
    }
    expect((await api.get('/widget/assets/widget-000000000000.js')).status).toBe(404);
  });

  it('GET /widget/demo: a host page with the snippet for this inbox', async () => {
    const res = await api.get(`/widget/demo?website_token=${inbox.website_token}`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('/packs/js/sdk.js');
    expect(res.text).toContain(`websiteToken:${JSON.stringify(inbox.website_token)}`);
    expect((await api.get('/widget/demo?website_token=%3Cscript%3E')).status).toBe(404);
  });
});
