import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, expectErrorBody, runtime, seedAccount, type Client, type SeededAccount } from '../../support/runtime.ts';
import { untilState } from '../../support/until.ts';
import { overrideEnv } from '../../support/env.ts';
import { download, keyOfLink, linkParts, SIGNED_LINK, splitSignedId } from '../../support/files.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';
import { newContact, newConversation, newInbox, ok, world, type World } from '../conversations/fixtures.ts';

// Who may fetch a stored file: only a holder of its signed, expiring link (shared/storage/file-urls.ts).
// The attacks of the issue, run as an anonymous client and as another account's user: the old
// `/avatars/<base64url key>` form with a real key, guessed neighbouring ids, a changed signature, another
// name, an expired link and a deleted message's file are all refused; the owner's link serves the bytes.

const FILE_ROUTE = '/rails/active_storage/blobs/redirect';
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64url');

/** The claims inside a signed id (read only: the MAC is what the service trusts). */
const claimsOf = (url: string) =>
  JSON.parse(Buffer.from(splitSignedId(linkParts(url).signedId).payload, 'base64url').toString('utf8')) as {
    k: string;
    n: string;
    e: number;
  };

/** The same link with its claims replaced (the MAC kept): what an attacker who read one link can forge. */
const forged = (url: string, change: Partial<{ k: string; n: string; e: number }>) => {
  const { signedId } = linkParts(url);
  const { mac } = splitSignedId(signedId);
  const claims = { ...claimsOf(url), ...change };
  return `${FILE_ROUTE}/${b64(JSON.stringify(claims))}--${mac}/${encodeURIComponent(claims.n)}`;
};

/** GET from another loopback address (its own rate-limit scope), without following redirects. */
function getFrom(
  localAddress: string,
  url: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'GET', localAddress }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('attachment access', () => {
  let w: World;
  let a: SeededAccount;
  let b: SeededAccount;
  let anonymous: Client;
  let bApi: Client;
  let baseUrl: string;

  beforeAll(async () => {
    const rt = await runtime();
    baseUrl = rt.baseUrl;
    w = await world();
    a = w.s;
    b = await seedAccount();
    anonymous = client(baseUrl);
    bApi = b.admin.api;
  });

  const conversation = () => newConversation(a, { inbox_id: w.inbox.id, contact_id: w.contact.id });
  const post = (id: number, body: unknown) => a.admin.api.post(`${a.base}/conversations/${id}/messages`, body);

  /** A private note with one multipart file. */
  async function noteWithFile(conversationId: number, bytes: Buffer, name: string) {
    const form = new FormData();
    form.append('private', 'true');
    form.append('attachments[]', new Blob([bytes], { type: 'text/plain' }), name);
    const m = ok(await post(conversationId, form), 'private note with a file');
    return m as { id: number; attachments: { id: number; data_url: string; thumb_url: string }[] };
  }

  /** A message with one direct upload (ActiveStorage's protocol). */
  async function messageWithDirectUpload(conversationId: number, bytes: Buffer, filename: string) {
    const checksum = createHash('md5').update(bytes).digest('base64');
    const blob = ok(
      await a.admin.api.post(`${a.base}/conversations/${conversationId}/direct_uploads`, {
        blob: { filename, byte_size: bytes.length, checksum, content_type: 'application/pdf' },
      }),
      'direct upload',
    );
    const put = await fetch(blob.direct_upload.url, { method: 'PUT', headers: blob.direct_upload.headers, body: bytes });
    expect(put.status).toBe(200);
    return ok(await post(conversationId, { content: 'scan', attachments: [blob.signed_id] }), 'message with a direct upload') as {
      id: number;
      attachments: { id: number; data_url: string }[];
    };
  }

  /** Every caller an attacker can be, on a path of this service: each gets a 404 with the error body. */
  async function refusedToAll(path: string) {
    for (const caller of [anonymous, bApi]) {
      const res = await caller.get(path);
      expectErrorBody(res, 404);
      expect(res.headers.get('location')).toBeNull();
    }
  }

  it("serves the owner's links (multipart and direct upload) and refuses every guessed, forged or old-style URL to anonymous callers and another account", async () => {
    const c = await conversation();
    const secret = Buffer.from(`private note file ${Date.now()}`);
    const note = await noteWithFile(c.id, secret, 'secret.txt');
    const link = note.attachments[0].data_url;
    expect(link).toMatch(SIGNED_LINK);
    expect(link.endsWith('/secret.txt')).toBe(true);
    // The link from the message JSON: 302 to storage, and the bytes there are the upload's.
    const redirect = await fetch(link, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(new URL(redirect.headers.get('location')!).origin).not.toBe(new URL(baseUrl).origin);
    expect(await download(link)).toEqual(secret);
    // The same link again a moment later (browsers keep it cached).
    const listed = ok(await a.admin.api.get(`${a.base}/conversations/${c.id}/messages`), 'list').payload;
    expect(listed.find((m: { id: number }) => m.id === note.id).attachments[0].data_url).toBe(link);

    const pdf = Buffer.from(`%PDF-1.4 scanned ${Date.now()}`);
    const direct = await messageWithDirectUpload(c.id, pdf, 'scan.pdf');
    const directLink = direct.attachments[0].data_url;
    expect(directLink).toMatch(SIGNED_LINK);
    expect(directLink.endsWith('/scan.pdf')).toBe(true);
    expect(await download(directLink)).toEqual(pdf);

    const key = await keyOfLink(link);
    expect(key).toBe(`attachments/${a.accountId}/${note.id}/${note.attachments[0].id}/secret.txt`);
    const directKey = await keyOfLink(directLink);

    // The old form with the real keys, and the guesses of neighbouring ids under it.
    await refusedToAll(`/avatars/${b64(key)}`);
    await refusedToAll(`/avatars/${b64(directKey)}`);
    for (const guess of [
      `attachments/${a.accountId}/${note.id}/${note.attachments[0].id + 1}/secret.txt`,
      `attachments/${a.accountId}/${note.id - 1}/${note.attachments[0].id - 1}/secret.txt`,
    ]) {
      await refusedToAll(`/avatars/${b64(guess)}`);
    }

    // Forged signed ids: another key (neighbouring ids, the direct upload's, another account's), another
    // name, a later expiry, each under the real MAC; a changed MAC; no MAC; a name not signed.
    const path = new URL(link).pathname;
    await refusedToAll(forged(link, { k: `attachments/${a.accountId}/${note.id}/${note.attachments[0].id + 1}/secret.txt` }));
    await refusedToAll(forged(link, { k: directKey }));
    await refusedToAll(forged(link, { k: `attachments/${b.accountId}/${note.id}/${note.attachments[0].id}/secret.txt` }));
    await refusedToAll(forged(link, { n: 'other.txt' }));
    await refusedToAll(forged(link, { e: claimsOf(link).e + 365 * 24 * 3600 }));
    const { signedId } = linkParts(link);
    const { payload, mac } = splitSignedId(signedId);
    const flipped = `${payload}--${mac[0] === 'A' ? 'B' : 'A'}${mac.slice(1)}`;
    await refusedToAll(`${FILE_ROUTE}/${flipped}/secret.txt`);
    await refusedToAll(`${FILE_ROUTE}/${payload}/secret.txt`);
    await refusedToAll(path.replace(/\/secret\.txt$/, '/other.txt'));
    await refusedToAll(`${FILE_ROUTE}/${signedId}/secret.txt/extra`);

    // Account B cannot read the message either, nor gain a link by writing the old URL into its own records.
    const foreign = await bApi.get(`${a.base}/conversations/${c.id}/messages`);
    expectErrorBody(foreign, foreign.status);
    expect([401, 403, 404]).toContain(foreign.status);
    const planted = await newContact(b, { avatar_url: `${baseUrl}/avatars/${b64(key)}` });
    const shown = ok(await bApi.get(`${b.base}/contacts/${planted.id}`), 'planted contact').payload;
    expect(shown.thumbnail).toBe(`${baseUrl}/avatars/${b64(key)}`);
    await refusedToAll(new URL(shown.thumbnail).pathname);
    expectErrorBody(await bApi.post(`${b.base}/contacts`, { name: 'x', avatar_url: `stored:${key}` }), 422);
  });

  it("stops serving a deleted message's files, multipart and direct upload alike", async () => {
    const c = await conversation();
    const note = await noteWithFile(c.id, Buffer.from('to be deleted'), 'gone.txt');
    const direct = await messageWithDirectUpload(c.id, Buffer.from('%PDF-1.4 gone'), 'gone.pdf');
    const links = [note.attachments[0].data_url, direct.attachments[0].data_url];
    for (const link of links) expect((await download(link)).length).toBeGreaterThan(0);

    for (const m of [note, direct]) {
      const deleted = ok(await a.admin.api.delete(`${a.base}/conversations/${c.id}/messages/${m.id}`), 'delete message');
      expect(deleted).toMatchObject({ id: m.id, content: 'This message was deleted', content_attributes: { deleted: true } });
      expect(deleted.attachments).toBeUndefined();
    }
    // The links handed out before are signed and not yet expired: the files themselves are gone.
    for (const link of links) {
      for (const caller of [anonymous, a.admin.api, bApi]) expectErrorBody(await caller.get(new URL(link).pathname), 404);
    }
    const listed = ok(await a.admin.api.get(`${a.base}/conversations/${c.id}/messages`), 'list').payload;
    for (const m of listed.filter((x: { id: number }) => x.id === note.id || x.id === direct.id)) expect(m.attachments).toBeUndefined();
  });

  it("stops serving a deleted conversation's files", async () => {
    const c = await conversation();
    const note = await noteWithFile(c.id, Buffer.from('in a conversation to be deleted'), 'conv.txt');
    const direct = await messageWithDirectUpload(c.id, Buffer.from('%PDF-1.4 conv'), 'conv.pdf');
    const links = [note.attachments[0].data_url, direct.attachments[0].data_url];
    for (const link of links) expect((await download(link)).length).toBeGreaterThan(0);
    const deleted = await a.admin.api.delete(`${a.base}/conversations/${c.id}`);
    expect(deleted.status).toBe(200);
    expectErrorBody(await a.admin.api.get(`${a.base}/conversations/${c.id}`), 404);
    for (const link of links) {
      for (const caller of [anonymous, a.admin.api]) expectErrorBody(await caller.get(new URL(link).pathname), 404);
    }
  });

  describe('with a short link lifetime', () => {
    let restore = (): void => undefined;
    beforeAll(() => {
      restore = overrideEnv({ FILE_URL_TTL_SECONDS: '4' });
    });
    afterAll(() => restore());

    it("the owner's link works, then expires", async () => {
      const c = await conversation();
      const note = await noteWithFile(c.id, Buffer.from('short-lived'), 'brief.txt');
      const link = note.attachments[0].data_url;
      const { e } = claimsOf(link);
      expect(e * 1000 - Date.now()).toBeLessThanOrEqual(6_000);
      expect((await download(link)).toString()).toBe('short-lived');
      // Polled until refused: never before its expiry.
      const refused = await untilState(
        () => anonymous.get(new URL(link).pathname),
        (res) => res.status !== 302,
        20_000,
      );
      expect(Date.now()).toBeGreaterThanOrEqual(e * 1000);
      expectErrorBody(refused, 404);
    });
  });

  it('signs uploaded avatars of contacts, inboxes and users wherever they are shown', async () => {
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
    const avatar = (field: string) => {
      const f = new FormData();
      f.append(field, new Blob([png], { type: 'image/png' }), 'me.png');
      return f;
    };
    // Contact: its JSON and a conversation's sender.
    const contact = await newContact(a);
    const withAvatar = ok(await a.admin.api.patch(`${a.base}/contacts/${contact.id}`, avatar('avatar')), 'contact avatar').payload;
    expect(withAvatar.thumbnail).toMatch(SIGNED_LINK);
    expect(await download(withAvatar.thumbnail)).toEqual(png);
    const conv = await newConversation(a, { inbox_id: w.inbox.id, contact_id: contact.id });
    expect(conv.meta.sender.thumbnail).toMatch(SIGNED_LINK);
    expect(await download(conv.meta.sender.thumbnail)).toEqual(png);
    await refusedToAll(`/avatars/${b64(await keyOfLink(withAvatar.thumbnail))}`);

    // Inbox: its JSON.
    const inbox = await newInbox(a);
    const inboxJson = ok(await a.admin.api.patch(`${a.base}/inboxes/${inbox.id}`, avatar('avatar')), 'inbox avatar');
    expect(inboxJson.avatar_url).toMatch(SIGNED_LINK);
    expect(await download(inboxJson.avatar_url)).toEqual(png);

    // User: the profile, and the agents list of the account.
    const profile = avatar('profile[avatar]');
    const me = ok(await a.agent.api.put('/api/v1/profile', profile), 'profile avatar');
    expect(me.avatar_url).toMatch(SIGNED_LINK);
    expect(await download(me.avatar_url)).toEqual(png);
    const agents = ok(await a.admin.api.get(`${a.base}/agents`), 'agents') as { id: number; thumbnail: string }[];
    const agent = agents.find((x) => x.id === a.agent.id)!;
    expect(agent.thumbnail).toMatch(SIGNED_LINK);
    expect(await keyOfLink(agent.thumbnail)).toBe(await keyOfLink(me.avatar_url));
  });

  it('puts signed links in webhook payloads (the pipeline signs them too)', async () => {
    const receiver: Receiver = await startReceiver();
    try {
      ok(await a.admin.api.post(`${a.base}/webhooks`, { url: receiver.url, subscriptions: ['message_created'] }), 'webhook');
      const c = await conversation();
      const note = await noteWithFile(c.id, Buffer.from('for the receiver'), 'hook.txt');
      const [delivery] = await untilState(
        async () => receiver.received.filter((r) => r.json?.id === note.id),
        (list) => list.length > 0,
      );
      const sent = delivery.json.attachments[0].data_url as string;
      expect(sent).toMatch(SIGNED_LINK);
      expect((await download(sent)).toString()).toBe('for the receiver');
    } finally {
      await receiver.close();
    }
  });

  describe('rate limit per client address', () => {
    let restore = (): void => undefined;
    beforeAll(() => {
      // Only this file's own address (127.0.0.2) reaches the limit; no shared-window writes meanwhile.
      restore = overrideEnv({ LIMIT_FILE_PER_MINUTE: '6', LIMIT_FILE_BURST: '3', LIMIT_SYNC_PERCENT: '0' });
    });
    afterAll(() => restore());

    it('answers 429 with Retry-After and rate_limited once an address spent its burst, links good or bad', async () => {
      const c = await conversation();
      const note = await noteWithFile(c.id, Buffer.from('limited'), 'limited.txt');
      const url = `${baseUrl}${new URL(note.attachments[0].data_url).pathname}`;
      const answers: number[] = [];
      let limited: Awaited<ReturnType<typeof getFrom>> | undefined;
      for (let i = 0; i < 10 && !limited; i++) {
        const res = await getFrom('127.0.0.2', i % 2 ? url : `${baseUrl}${FILE_ROUTE}/forged--x/limited.txt`);
        answers.push(res.status);
        if (res.status === 429) limited = res;
      }
      expect(limited, `answers: ${answers.join(',')}`).toBeDefined();
      expect(answers.slice(0, 3).every((s) => s === 302 || s === 404)).toBe(true);
      expect(Number(limited!.headers['retry-after'])).toBeGreaterThan(0);
      expect(limited!.body.errors[0].code).toBe('rate_limited');
      expect(typeof limited!.body.description).toBe('string');
      // Another address is not held back.
      expect((await fetch(url, { redirect: 'manual' })).status).toBe(302);
    });
  });
});
