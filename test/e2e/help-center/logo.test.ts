import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifiedFile } from '#shared/storage/file-urls.ts';
import { download, linkParts, SIGNED_LINK } from '../../support/files.ts';
import { startFakeProvider, PNG, type FakeProvider } from '../../support/providers.ts';
import { client, expectErrorBody, runtime, seedAccount, unique, type Client, type SeededAccount } from '../../support/runtime.ts';

// A portal's logo as Chatwoot's dashboard sets it: the image uploaded first (`POST …/upload`, multipart
// `attachment` or an `external_url`, answering `{file_url, blob_key, blob_id}`), then named by `blob_id` on the
// portal (flat or beside a wrapped `portal`), shown in the portal's JSON (Chatwoot's `file_base_data`) and in
// the public pages' header, removed by `DELETE …/logo` with its file. Over real HTTP and the storage emulator.

const GIF = Buffer.concat([Buffer.from('GIF89a'), Buffer.alloc(16, 1)]);

const form = (name: string, data: Buffer, type: string, filename: string) => {
  const f = new FormData();
  f.append(name, new Blob([data], { type }), filename);
  return f;
};

/** What a file link answers: 302 while its file is stored, 404 once it is gone. */
const linkStatus = async (url: string) => (await fetch(url, { redirect: 'manual' })).status;

describe('portal logo: upload, attach, show, delete', () => {
  let s: SeededAccount;
  let other: SeededAccount;
  let visitor: Client;
  let images: FakeProvider;

  const upload = async (account: SeededAccount, body: FormData | Record<string, unknown>) =>
    account.admin.api.post(`${account.base}/upload`, body);
  const portal = async (name = 'Logo Docs') => {
    const slug = unique('logo-');
    const res = await s.admin.api.post(`${s.base}/portals`, { name, slug });
    expect(res.status).toBe(200);
    return slug;
  };

  beforeAll(async () => {
    visitor = client((await runtime()).baseUrl);
    [s, other] = await Promise.all([seedAccount(), seedAccount()]);
    images = await startFakeProvider();
    images.on('GET', /^\/img\/brand\.png$/, () => ({ body: PNG, headers: { 'content-type': 'image/png' } }));
    images.on('GET', /^\/img\/page\.html$/, () => ({
      body: '<html><script>alert(1)</script></html>',
      headers: { 'content-type': 'image/png' },
    }));
    images.on('GET', /^\/img\/gone\.png$/, () => ({ status: 404, body: 'no' }));
  });
  afterAll(() => images?.close());

  it("uploads an image as Chatwoot's upload route answers it, and its file_url serves the bytes", async () => {
    const res = await upload(s, form('attachment', PNG, 'image/png', 'brand logo.png'));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['blob_id', 'blob_key', 'file_url']);
    expect(res.body.file_url).toMatch(SIGNED_LINK);
    expect(res.body.file_url.endsWith('/brand%20logo.png')).toBe(true);
    expect(res.body.blob_key).toMatch(/^[0-9a-f-]{36}\.png$/);
    expect(res.body.blob_id).toEqual(expect.any(String));
    expect(await download(res.body.file_url)).toEqual(PNG);
    // Any member uploads (Chatwoot's upload controller asks for no role).
    expect((await s.agent.api.post(`${s.base}/upload`, form('attachment', GIF, 'image/gif', 'a.gif'))).status).toBe(200);
  });

  it("an upload's file_url is long-lived and serves from an article's Markdown on its public page", async () => {
    const up = (await upload(s, form('attachment', PNG, 'image/png', 'chart.png'))).body;
    // Chatwoot's blob links never expire; this one is signed for ten years (articles hold it).
    const { signedId, filename } = linkParts(up.file_url);
    const file = await verifiedFile(signedId, filename);
    expect(file!.expires * 1000 - Date.now()).toBeGreaterThan(9 * 365 * 86_400_000);
    const slug = await portal('Charts');
    const P = `${s.base}/portals/${slug}`;
    const made = await s.admin.api.post(`${P}/articles`, {
      title: 'Our chart',
      slug: 'our-chart',
      content: `Look:\n\n![Chart](${up.file_url})`,
      author_id: s.admin.id,
    });
    expect(made.status).toBe(200);
    ok200(await s.admin.api.patch(`${P}/articles/${made.body.payload.id}`, { status: 'published' }));
    const page = await visitor.get(`/hc/${slug}/articles/our-chart`);
    const src = /<article>[\s\S]*<img src="([^"]+)" alt="Chart"/.exec(page.text)?.[1]?.replaceAll('&amp;', '&');
    expect(src).toBe(up.file_url);
    expect(await download(src!)).toEqual(PNG);
  });

  it('takes an external_url (fetched through the address guard) and refuses what is no image or no answer', async () => {
    const res = await upload(s, { external_url: `${images.url}/img/brand.png` });
    expect(res.status).toBe(200);
    expect(res.body.file_url).toMatch(/\/brand\.png$/);
    expect(await download(res.body.file_url)).toEqual(PNG);

    for (const [body, field, code] of [
      [{ external_url: `${images.url}/img/page.html` }, 'external_url', 'invalid_type'],
      [{ external_url: `${images.url}/img/gone.png` }, 'external_url', 'unreachable'],
      [{ external_url: 'ftp://example.com/a.png' }, 'external_url', 'invalid'],
      [{ external_url: 'not a url' }, 'external_url', 'invalid'],
      [{}, 'attachment', 'blank'],
      [{ external_url: '' }, 'attachment', 'blank'],
    ] as const) {
      const refused = await upload(s, body);
      expect([JSON.stringify(body), refused.status, refused.body.errors?.[0]?.field, refused.body.errors?.[0]?.code]).toEqual([
        JSON.stringify(body),
        422,
        field,
        code,
      ]);
      expectErrorBody(refused, 422);
    }
  });

  it('stores images only, told by their bytes: a script labelled image/png, an SVG or an empty file is 422', async () => {
    for (const [data, type, name] of [
      [Buffer.from('<html><script>alert(1)</script></html>'), 'image/png', 'x.png'],
      [Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'), 'image/svg+xml', 'x.svg'],
      [Buffer.from('%PDF-1.4'), 'application/pdf', 'x.pdf'],
    ] as const) {
      const refused = await upload(s, form('attachment', data, type, name));
      expect([name, refused.status, refused.body.errors?.[0]?.field, refused.body.errors?.[0]?.code]).toEqual([
        name,
        422,
        'attachment',
        'invalid_type',
      ]);
    }
    const empty = await upload(s, form('attachment', Buffer.alloc(0), 'image/png', 'e.png'));
    expect([empty.status, empty.body.errors?.[0]?.field]).toEqual([422, 'attachment']);
    // Without a credential: 401, before the body is read.
    expect((await visitor.post(`${s.base}/upload`, form('attachment', PNG, 'image/png', 'a.png'))).status).toBe(401);
  });

  it('attaches a blob_id (flat, then beside a wrapped portal), shows it as Chatwoot does, replaces and deletes it with its file', async () => {
    const slug = await portal();
    const first = (await upload(s, form('attachment', PNG, 'image/png', 'logo.png'))).body;

    // The dashboard's call: `PATCH /portals/{slug} {blob_id}` alone.
    const attached = await s.admin.api.patch(`${s.base}/portals/${slug}`, { blob_id: first.blob_id });
    expect(attached.status).toBe(200);
    const portalId = attached.body.id;
    expect(attached.body.logo).toEqual({
      id: expect.any(Number),
      portal_id: portalId,
      file_type: 'image/png',
      account_id: s.accountId,
      file_url: expect.stringMatching(SIGNED_LINK),
      blob_id: first.blob_id,
      filename: 'logo.png',
    });
    expect(await download(attached.body.logo.file_url)).toEqual(PNG);
    // Shown by show and index too; a member (agent) reads it.
    const shown = await s.agent.api.get(`${s.base}/portals/${slug}`);
    expect(shown.body.logo).toMatchObject({ filename: 'logo.png', file_type: 'image/png' });
    const listed = (await s.admin.api.get(`${s.base}/portals`)).body.payload.find((p: { slug: string }) => p.slug === slug);
    expect(listed.logo.blob_id).toBe(first.blob_id);

    // A wrapped update with a new blob_id beside it: the fields change, the logo is replaced, the old file goes.
    const second = (await upload(s, form('attachment', GIF, 'image/gif', 'logo.gif'))).body;
    const replaced = await s.admin.api.put(`${s.base}/portals/${slug}`, { portal: { header_text: 'Hi' }, blob_id: second.blob_id });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({
      header_text: 'Hi',
      logo: { file_type: 'image/gif', filename: 'logo.gif', blob_id: second.blob_id },
    });
    expect(replaced.body.logo.id).not.toBe(attached.body.logo.id);
    expect(await download(replaced.body.logo.file_url)).toEqual(GIF);
    expect(await linkStatus(first.file_url)).toBe(404);
    // An update without blob_id keeps it; a blank or null one too (Rails' `present?`).
    for (const body of [{ page_title: 'Docs' }, { blob_id: '' }, { portal: { name: 'Logo Docs' }, blob_id: null }]) {
      const kept = await s.admin.api.patch(`${s.base}/portals/${slug}`, body);
      expect([JSON.stringify(body), kept.status, kept.body.logo?.blob_id]).toEqual([JSON.stringify(body), 200, second.blob_id]);
    }

    // Only an administrator writes it.
    expect((await s.agent.api.delete(`${s.base}/portals/${slug}/logo`)).status).toBe(403);

    const removed = await s.admin.api.delete(`${s.base}/portals/${slug}/logo`);
    expect(removed.status).toBe(200);
    const after = await s.admin.api.get(`${s.base}/portals/${slug}`);
    expect(after.body.logo).toBeUndefined();
    expect(await linkStatus(replaced.body.logo.file_url)).toBe(404);
    // Once more, with nothing left: still 200 (Chatwoot's `purge if attached?`); an unknown portal 404.
    expect((await s.admin.api.delete(`${s.base}/portals/${slug}/logo`)).status).toBe(200);
    expect((await s.admin.api.delete(`${s.base}/portals/no-such-portal-x/logo`)).status).toBe(404);
  });

  it("refuses another account's blob, a changed or made-up blob_id and a blob whose file is gone with 422, changing nothing", async () => {
    const slug = await portal();
    const mine = (await upload(s, form('attachment', PNG, 'image/png', 'mine.png'))).body;
    ok200(await s.admin.api.patch(`${s.base}/portals/${slug}`, { blob_id: mine.blob_id }));
    const theirs = (await upload(other, form('attachment', PNG, 'image/png', 'theirs.png'))).body;
    const [h, body, mac] = (mine.blob_id as string).split('.');
    const tampered = `${h}.${Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), account_id: other.accountId }),
    ).toString('base64url')}.${mac}`;
    for (const blobId of [theirs.blob_id, tampered, 'garbage', 12345, 'a.b.c', 'x'.repeat(4096)]) {
      const res = await s.admin.api.patch(`${s.base}/portals/${slug}`, { portal: { header_text: 'changed' }, blob_id: blobId });
      expect([String(blobId).slice(0, 20), res.status, res.body.errors?.[0]?.field]).toEqual([String(blobId).slice(0, 20), 422, 'blob_id']);
      expectErrorBody(res, 422);
    }
    const unchanged = await s.admin.api.get(`${s.base}/portals/${slug}`);
    expect([unchanged.body.header_text, unchanged.body.logo.blob_id]).toEqual([null, mine.blob_id]);
    // Longer than any blob_id: the schema's bound.
    expect((await s.admin.api.patch(`${s.base}/portals/${slug}`, { blob_id: 'x'.repeat(5000) })).status).toBe(422);
    expect((await s.admin.api.patch(`${s.base}/portals/${slug}`, { blob_id: { id: 1 } })).status).toBe(422);

    // A blob whose file was deleted (its portal's logo removed) names nothing any more.
    ok200(await s.admin.api.delete(`${s.base}/portals/${slug}/logo`));
    const stale = await s.admin.api.patch(`${s.base}/portals/${slug}`, { blob_id: mine.blob_id });
    expect([stale.status, stale.body.errors?.[0]?.field, stale.body.errors?.[0]?.code]).toEqual([422, 'blob_id', 'not_found']);
  });

  it('a new portal takes a blob_id (flat, as the n8n node sends a portal); deleting the portal deletes the file', async () => {
    const up = (await upload(s, form('attachment', PNG, 'image/png', 'new.png'))).body;
    const slug = unique('logo-new-');
    const made = await s.admin.api.post(`${s.base}/portals`, { name: 'With logo', slug, blob_id: up.blob_id });
    expect(made.status).toBe(200);
    expect(made.body.logo).toMatchObject({ filename: 'new.png', portal_id: made.body.id, account_id: s.accountId });
    expect(await linkStatus(made.body.logo.file_url)).toBe(302);
    // Wrapped, with an unknown blob: 422 and no portal.
    const badSlug = unique('logo-bad-');
    const bad = await s.admin.api.post(`${s.base}/portals`, { portal: { name: 'Bad', slug: badSlug }, blob_id: 'nope' });
    expect([bad.status, bad.body.errors?.[0]?.field]).toEqual([422, 'blob_id']);
    expect((await s.admin.api.get(`${s.base}/portals/${badSlug}`)).status).toBe(404);

    expect((await s.admin.api.delete(`${s.base}/portals/${slug}`)).status).toBe(200);
    expect(await linkStatus(made.body.logo.file_url)).toBe(404);
  });

  it("the public pages show the logo in the header, before the portal's name", async () => {
    const slug = await portal('Pictured');
    const up = (await upload(s, form('attachment', PNG, 'image/png', 'pic.png'))).body;
    ok200(await s.admin.api.patch(`${s.base}/portals/${slug}`, { blob_id: up.blob_id }));
    const page = await visitor.get(`/hc/${slug}/en`);
    expect(page.status).toBe(200);
    const img = /<a class="brand" href="[^"]+"><img src="([^"]+)" alt="" height="32">Pictured<\/a>/.exec(page.text);
    expect(img).not.toBeNull();
    const src = img![1].replaceAll('&amp;', '&');
    expect(src).toMatch(SIGNED_LINK);
    expect(await download(src)).toEqual(PNG);
    // Without a logo, the name alone.
    ok200(await s.admin.api.delete(`${s.base}/portals/${slug}/logo`));
    expect((await visitor.get(`/hc/${slug}/en`)).text).toContain('"><a class="brand" href="/hc/');
    expect((await visitor.get(`/hc/${slug}/en`)).text).not.toContain('<img');
  });
});

function ok200(res: { status: number; text: string }) {
  expect(res.status, res.text).toBe(200);
}
