import { randomUUID } from 'node:crypto';
import { signJwt, verifyJwt } from '../../crypto/jwt.ts';
import { invalidField } from '../../http/errors.ts';
import { getObject, signedUploadUrl } from '../../storage/objects.ts';
import type { UploadedFile } from '../messages/schemas.ts';
import type { WidgetRequest } from './chat.ts';
import type { DirectUpload } from './schemas.ts';
import { visitorSession } from './service.ts';

// Direct uploads (ActiveStorage's protocol, as Chatwoot's widget uses it when enabled): the widget asks
// for an upload URL, PUTs the file straight to storage, then sends the message naming the blob by its
// `signed_id`. The signed id is a token of ours naming the object and the visitor's contact inbox, so a
// blob can only be attached by the visitor who uploaded it, and only the file then stored is taken.

const PURPOSE = 'direct-upload';
const TTL_SECONDS = 24 * 3600;
/** Chatwoot's default `MAXIMUM_FILE_UPLOAD_SIZE` (40 MB). */
export const MAX_UPLOAD_BYTES = 40 * 1024 * 1024;

/** `POST /direct_uploads`: a URL to PUT the file to, and the id to name it by in a message. */
export async function createDirectUpload(req: WidgetRequest, input: DirectUpload) {
  const { ci } = await visitorSession(req.websiteToken, req.authToken);
  const { filename, byte_size, checksum, content_type } = input.blob;
  if (byte_size > MAX_UPLOAD_BYTES) throw invalidField('byte_size', `must be at most ${MAX_UPLOAD_BYTES} bytes`);
  const key = `attachments/direct/${ci.account_id}/${randomUUID()}`;
  const type = content_type || 'application/octet-stream';
  const signedId = await signJwt(PURPOSE, { key, filename, content_type: type, inbox_id: ci.inbox_id, source_id: ci.source_id }, TTL_SECONDS);
  return {
    key,
    filename,
    content_type: type,
    byte_size,
    checksum: checksum ?? null,
    signed_id: signedId,
    direct_upload: { url: await signedUploadUrl(key, type), headers: { 'Content-Type': type } },
  };
}

/** The uploaded files a message names by signed id (422 for an id that is not this visitor's upload). */
export async function uploadedFiles(ci: { inbox_id: number; source_id: string }, signedIds: string[]): Promise<UploadedFile[]> {
  return Promise.all(
    signedIds.map(async (id) => {
      const claims = await verifyJwt(PURPOSE, id);
      if (!claims || claims.inbox_id !== ci.inbox_id || claims.source_id !== ci.source_id || typeof claims.key !== 'string') {
        throw invalidField('attachments', 'names an upload that is not yours or has expired');
      }
      const data = await getObject(claims.key);
      if (!data) throw invalidField('attachments', 'names an upload whose file was never stored');
      if (data.length > MAX_UPLOAD_BYTES) throw invalidField('attachments', `must be at most ${MAX_UPLOAD_BYTES} bytes`);
      return { filename: String(claims.filename || 'file'), content_type: String(claims.content_type), data, size: data.length };
    }),
  );
}
