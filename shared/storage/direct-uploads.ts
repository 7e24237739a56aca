import { randomUUID } from 'node:crypto';
import { signJwt, verifyJwt } from '#shared/crypto/jwt.ts';
import { invalidField } from '#shared/errors.ts';
import type { UploadedFile } from '#shared/model/uploads.ts';
import { objectSize, signedUploadUrl } from './objects.ts';

// Direct uploads (ActiveStorage's protocol, as Chatwoot's dashboard, mobile app and widget use it): the
// client asks for an upload URL, PUTs the file straight to storage, then sends the message naming the
// blob by its `signed_id`. Files too large for a request body (above MAX_MULTIPART_BODY_BYTES) travel
// this way. The signed id is a token of ours naming the object and its owner — a visitor's contact
// inbox, or an account's conversation — so a blob can only be attached where it was uploaded for, and
// the message takes the stored object as it is (no copy through the function).

const PURPOSE = 'direct-upload';
const TTL_SECONDS = 24 * 3600;
/** Chatwoot's default `MAXIMUM_FILE_UPLOAD_SIZE` (40 MB). */
export const MAX_UPLOAD_BYTES = 40 * 1024 * 1024;

/** Who may attach an upload: a widget visitor (its contact inbox) or the users of an account's conversation. */
export type UploadOwner = { account_id: number } & ({ inbox_id: number; source_id: string } | { conversation_id: number });

export interface BlobRequest {
  filename: string;
  byte_size: number;
  checksum?: string | null;
  content_type?: string | null;
}

const sameOwner = (claims: Record<string, unknown>, owner: UploadOwner) =>
  claims.account_id === owner.account_id &&
  ('conversation_id' in owner
    ? claims.conversation_id === owner.conversation_id
    : claims.inbox_id === owner.inbox_id && claims.source_id === owner.source_id);

/** `POST …/direct_uploads {blob}`: ActiveStorage's blob JSON with its `signed_id` and where to PUT the file. */
export async function createDirectUpload(owner: UploadOwner, blob: BlobRequest) {
  const { filename, byte_size, checksum } = blob;
  if (byte_size > MAX_UPLOAD_BYTES) throw invalidField('byte_size', `must be at most ${MAX_UPLOAD_BYTES} bytes`);
  if (checksum && !/^[A-Za-z0-9+/]{22}==$/.test(checksum)) throw invalidField('checksum', 'must be the base64 MD5 of the file');
  const key = `attachments/direct/${owner.account_id}/${randomUUID()}`;
  const type = blob.content_type || 'application/octet-stream';
  const signedId = await signJwt(PURPOSE, { key, filename, content_type: type, byte_size, ...owner }, TTL_SECONDS);
  return {
    key,
    filename,
    content_type: type,
    byte_size,
    checksum: checksum ?? null,
    created_at: new Date().toISOString(),
    signed_id: signedId,
    direct_upload: {
      url: await signedUploadUrl(key, { contentType: type, length: byte_size, md5: checksum ?? undefined }),
      headers: { 'Content-Type': type, ...(checksum ? { 'Content-MD5': checksum } : {}) },
    },
  };
}

/**
 * The stored files a message names by signed id, as attachments that keep their storage key (422 for an
 * id of another owner, expired, or whose file was never stored or is larger than announced).
 */
export async function storedUploads(owner: UploadOwner, signedIds: string[]): Promise<UploadedFile[]> {
  return Promise.all(
    signedIds.map(async (id) => {
      const claims = await verifyJwt(PURPOSE, id);
      if (!claims || !sameOwner(claims, owner) || typeof claims.key !== 'string') {
        throw invalidField('attachments', 'names an upload that is not yours or has expired');
      }
      const size = await objectSize(claims.key);
      if (size === undefined) throw invalidField('attachments', 'names an upload whose file was never stored');
      if (size > MAX_UPLOAD_BYTES) throw invalidField('attachments', `must be at most ${MAX_UPLOAD_BYTES} bytes`);
      return { filename: String(claims.filename || 'file'), content_type: String(claims.content_type), size, key: claims.key };
    }),
  );
}
