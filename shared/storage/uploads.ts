import { randomUUID } from 'node:crypto';
import { IMAGE_EXTENSIONS, type ImageType } from '#shared/codec/image-type.ts';
import { signJwt, verifyJwt } from '#shared/crypto/jwt.ts';
import { linkExpiry, signedFileUrl } from './file-urls.ts';
import { objectSize, putObject } from './objects.ts';

// Files an account uploads on their own, before anything names them (Chatwoot's `POST …/accounts/{a}/upload`,
// which its dashboard calls for a portal's logo and for images in articles). The file is stored under the
// account's own prefix, and the answer names it by a `blob_id` that is a token of ours: it carries the storage
// key and the account, under a MAC, so a portal can take only a blob of its own account and a changed or
// guessed id names nothing. The token does not expire (Chatwoot's blob ids do not either); the file it
// names may be gone, which the attach checks.

const PURPOSE = 'account-upload';

/**
 * How long an upload's `file_url` serves. Chatwoot's blob links never expire, and the dashboard writes this
 * one into articles' Markdown, which visitors read for as long as the article stands; the MAC still names
 * the one file, so the link is as private as the place it is written into.
 */
export const UPLOAD_LINK_SECONDS = 10 * 365 * 86_400;

export const uploadPrefix = (accountId: number) => `uploads/${accountId}/`;

export interface AccountBlob {
  key: string;
  filename: string;
  content_type: string;
  byte_size: number;
}

/** Stores an image of the account; its blob, the `blob_id` naming it, and a long-lived link to it. */
export async function storeAccountUpload(accountId: number, data: Buffer, filename: string, type: ImageType) {
  const key = `${uploadPrefix(accountId)}${randomUUID()}.${IMAGE_EXTENSIONS[type]}`;
  await putObject(key, data, type);
  const blob: AccountBlob = { key, filename, content_type: type, byte_size: data.length };
  return {
    blob,
    blobId: await signJwt(PURPOSE, { ...blob, account_id: accountId }),
    fileUrl: signedFileUrl(key, filename, linkExpiry(Date.now(), UPLOAD_LINK_SECONDS)),
  };
}

/**
 * The blob a `blob_id` names, when the id is ours, of this account, and its file is still stored; undefined
 * for anything else (which check failed is not told).
 */
export async function accountBlob(accountId: number, blobId: string): Promise<AccountBlob | undefined> {
  const c = await verifyJwt(PURPOSE, blobId);
  if (!c || c.account_id !== accountId || typeof c.key !== 'string' || !c.key.startsWith(uploadPrefix(accountId))) return undefined;
  if (typeof c.filename !== 'string' || typeof c.content_type !== 'string') return undefined;
  const size = await objectSize(c.key);
  if (size === undefined) return undefined;
  return { key: c.key, filename: c.filename, content_type: c.content_type, byte_size: size };
}
