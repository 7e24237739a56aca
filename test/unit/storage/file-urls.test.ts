import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  fileScope,
  fileSigningReady,
  fileUrl,
  linkExpiry,
  signedFileUrl,
  storedKeyOf,
  storedRef,
  verifiedFile,
} from '#shared/storage/file-urls.ts';
import { overrideEnv } from '../../support/env.ts';
import { linkParts, splitSignedId } from '../../support/files.ts';

const BASE = 'https://chat.example.com';
const legacy = (key: string, base = BASE) => `${base}/avatars/${Buffer.from(key).toString('base64url')}`;

describe('signed file links', () => {
  // Put back for the files after this one (a unit worker runs many files in one process).
  let restore = (): void => undefined;
  beforeAll(async () => {
    restore = overrideEnv({
      TABLE_NAME: process.env.TABLE_NAME ?? 'unit',
      TOKEN_KEY_FILE: undefined,
      TOKEN_KEY_SECRET_ARN: undefined,
      TOKEN_KEY: Buffer.alloc(32, 3).toString('base64'),
      PUBLIC_BASE_URL: BASE,
      FILE_URL_TTL_SECONDS: String(7 * 24 * 3600),
    });
    await fileSigningReady();
  });
  afterAll(() => restore());

  const verify = (url: string, nowMs?: number) => {
    const { signedId, filename } = linkParts(url);
    return verifiedFile(signedId, filename, nowMs);
  };

  it('signs a stored reference within its scope as a link that names the key, the name and an expiry', async () => {
    const key = 'attachments/7/100/200/report.pdf';
    const url = fileUrl(storedRef(key), fileScope.attachment(7), 'report.pdf');
    expect(url).toMatch(
      /^https:\/\/chat\.example\.com\/rails\/active_storage\/blobs\/redirect\/[A-Za-z0-9_-]+--[A-Za-z0-9_-]{43}\/report\.pdf$/,
    );
    const file = await verify(url);
    expect(file).toMatchObject({ key, name: 'report.pdf' });
    expect(file!.expires * 1000).toBeGreaterThanOrEqual(Date.now() + 7 * 24 * 3600 * 1000 - 1000);
    // The same link for a while (browsers keep it cached).
    expect(fileUrl(storedRef(key), fileScope.attachment(7), 'report.pdf')).toBe(url);
    // A direct upload's key has no name: the attachment's is shown, encoded, and still verifies.
    const direct = fileUrl(storedRef('attachments/direct/7/4f1c'), fileScope.attachment(7), 'my report (1).pdf');
    expect(direct.endsWith('/my%20report%20(1).pdf')).toBe(true);
    expect(await verify(direct)).toMatchObject({ key: 'attachments/direct/7/4f1c', name: 'my report (1).pdf' });
    const { signedId } = linkParts(direct);
    expect(await verifiedFile(signedId, 'my report (1).pdf')).toMatchObject({ key: 'attachments/direct/7/4f1c' });
  });

  it('reads uploads stored before signed links (their old URL on this base), and signs them the same way', async () => {
    const key = 'avatars/contacts/7/9/abc.png';
    expect(storedKeyOf(legacy(key))).toBe(key);
    const url = fileUrl(legacy(key), fileScope.contactAvatar(7));
    expect((await verify(url))?.key).toBe(key);
    expect(url).toBe(fileUrl(storedRef(key), fileScope.contactAvatar(7)));
  });

  it("never signs a reference outside its record's scope, nor a URL of another host", () => {
    const privateNote = 'attachments/7/100/200/secret.pdf';
    // A contact (or visitor) writing another file's old URL into its avatar gets no link to that file.
    expect(fileUrl(legacy(privateNote), fileScope.contactAvatar(7))).toBe(legacy(privateNote));
    expect(fileUrl(legacy(privateNote), fileScope.attachment(8))).toBe(legacy(privateNote));
    expect(fileUrl(storedRef(privateNote), fileScope.attachment(8))).toBe('');
    expect(fileUrl(storedRef('avatars/users/5/a.png'), fileScope.userAvatar(6))).toBe('');
    expect(fileUrl(storedRef('secrets/x'), ['secrets/'])).toBe('');
    // Another host's URL is a client's: as written.
    expect(fileUrl(legacy('avatars/contacts/7/9/abc.png', 'https://elsewhere.example'), fileScope.contactAvatar(7))).toBe(
      legacy('avatars/contacts/7/9/abc.png', 'https://elsewhere.example'),
    );
    expect(fileUrl('https://img.example/me.png', fileScope.contactAvatar(7))).toBe('https://img.example/me.png');
    expect(fileUrl('', fileScope.contactAvatar(7))).toBe('');
    expect(fileUrl(null, fileScope.contactAvatar(7))).toBe('');
  });

  it('refuses a changed signed id, another name, another key, an expired link and files outside the served prefixes', async () => {
    const url = fileUrl(storedRef('attachments/7/100/200/a.png'), fileScope.attachment(7), 'a.png');
    const { signedId, filename } = linkParts(url);
    const { payload, mac } = splitSignedId(signedId);
    // A neighbouring id in the payload (the MAC no longer matches).
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const guessed = Buffer.from(JSON.stringify({ ...claims, k: 'attachments/7/100/201/a.png' })).toString('base64url');
    expect(await verifiedFile(`${guessed}--${mac}`, filename)).toBeUndefined();
    const flipped = mac[0] === 'A' ? `B${mac.slice(1)}` : `A${mac.slice(1)}`;
    expect(await verifiedFile(`${payload}--${flipped}`, filename)).toBeUndefined();
    expect(await verifiedFile(signedId, 'b.png')).toBeUndefined();
    expect(await verifiedFile(payload, filename)).toBeUndefined();
    expect(await verifiedFile('x'.repeat(5000), filename)).toBeUndefined();
    expect(await verifiedFile(`${Buffer.from('not json').toString('base64url')}--${mac}`, filename)).toBeUndefined();
    // Expired: after its expiry, not before.
    const file = (await verifiedFile(signedId, filename))!;
    expect(await verifiedFile(signedId, filename, file.expires * 1000 - 1)).toBeDefined();
    expect(await verifiedFile(signedId, filename, file.expires * 1000)).toBeUndefined();
    const past = signedFileUrl('attachments/7/100/200/a.png', 'a.png', Math.floor(Date.now() / 1000) - 1);
    expect(await verify(past)).toBeUndefined();
    // Signed, but not a file the route serves.
    expect(await verify(signedFileUrl('secrets/x', 'x'))).toBeUndefined();
  });

  it('signs with a key of its own derived from the token key: another token key verifies none of its links', async () => {
    const url = fileUrl(storedRef('attachments/7/1/2/a.png'), fileScope.attachment(7), 'a.png');
    const back = overrideEnv({ TOKEN_KEY: Buffer.alloc(32, 4).toString('base64') });
    try {
      await fileSigningReady();
      expect(await verify(url)).toBeUndefined();
      expect(await verify(fileUrl(storedRef('attachments/7/1/2/a.png'), fileScope.attachment(7), 'a.png'))).toBeDefined();
    } finally {
      back();
      await fileSigningReady();
    }
    expect(await verify(url)).toBeDefined();
  });

  it('expires at least a TTL ahead, on steps of a seventh of it (at most a day)', () => {
    const week = 7 * 24 * 3600;
    for (const now of [0, 1_000, 86_399_000, 1_700_000_123_456]) {
      const e = linkExpiry(now, week);
      expect(e).toBeGreaterThanOrEqual(Math.floor(now / 1000) + week);
      expect(e).toBeLessThanOrEqual(Math.floor(now / 1000) + week + 86_400);
      expect(e % 86_400).toBe(0);
    }
    expect(linkExpiry(10_500, 3)).toBe(13);
    // The same expiry all through a step.
    expect(linkExpiry(1_000_000, week)).toBe(linkExpiry(1_000_000 + 3600_000, week));
  });

  it('finds the key of an attachment reference on any host for the purge, and nothing in a foreign or empty one', () => {
    const key = 'attachments/12/34/56/shot.png';
    expect(storedKeyOf(legacy(key, 'https://old.example.com'), true)).toBe(key);
    expect(storedKeyOf(legacy(key, 'https://old.example.com'))).toBeUndefined();
    expect(storedKeyOf(storedRef(key), true)).toBe(key);
    expect(storedKeyOf('https://example.com/avatars/not base64!', true)).toBeUndefined();
    expect(storedKeyOf('https://example.com/pics/a.png', true)).toBeUndefined();
    expect(storedKeyOf('', true)).toBeUndefined();
    expect(storedKeyOf(null, true)).toBeUndefined();
  });

  it('refuses to sign before the key is loaded (an entry point that forgot to load it fails loudly)', async () => {
    vi.resetModules();
    const fresh = await import('#shared/storage/file-urls.ts');
    expect(() => fresh.fileUrl(fresh.storedRef('attachments/7/1/2/a.png'), fresh.fileScope.attachment(7))).toThrow(/fileSigningReady/);
    // External URLs need no key.
    expect(fresh.fileUrl('https://img.example/me.png', fresh.fileScope.contactAvatar(7))).toBe('https://img.example/me.png');
  });
});
