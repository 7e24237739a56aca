import { FILE_ROUTE, verifiedFile } from '#shared/storage/file-urls.ts';

// Signed file links (shared/storage/file-urls.ts) as tests read them.

/** A signed file link's path: its signed id and its name segment; throws for anything else. */
export function linkParts(url: string): { signedId: string; filename: string } {
  const path = new URL(url).pathname;
  if (!path.startsWith(`${FILE_ROUTE}/`)) throw new Error(`not a signed file link: ${url}`);
  const [signedId, filename, ...rest] = path.slice(FILE_ROUTE.length + 1).split('/');
  if (!signedId || !filename || rest.length) throw new Error(`not a signed file link: ${url}`);
  return { signedId, filename };
}

/** A signed id's two parts: its payload and its MAC (43 characters; either may itself hold `--`). */
export const splitSignedId = (signedId: string) => ({ payload: signedId.slice(0, -45), mac: signedId.slice(-43) });

/** The storage key a signed file link names (verified as the service verifies it). */
export async function keyOfLink(url: string): Promise<string> {
  const { signedId, filename } = linkParts(url);
  const file = await verifiedFile(signedId, filename);
  if (!file) throw new Error(`link does not verify: ${url}`);
  return file.key;
}

/** The bytes a file link serves: its 302, then the presigned location. */
export async function download(url: string): Promise<Buffer> {
  const redirect = await fetch(url, { redirect: 'manual' });
  if (redirect.status !== 302) throw new Error(`expected 302 from ${url}, got ${redirect.status}: ${await redirect.text()}`);
  const res = await fetch(redirect.headers.get('location')!);
  if (res.status !== 200) throw new Error(`presigned GET answered ${res.status}`);
  return Buffer.from(await res.arrayBuffer());
}

/** Signed file links look like Chatwoot's blob links, ending in the file's name. */
export const SIGNED_LINK = /^http:\/\/[^/]+\/rails\/active_storage\/blobs\/redirect\/[A-Za-z0-9_-]+--[A-Za-z0-9_-]{43}\/[^/]+$/;
