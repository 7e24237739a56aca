import { imageTypeOf } from '#shared/codec/image-type.ts';
import { config } from '#shared/config.ts';
import { invalidField, unprocessable } from '#shared/errors.ts';
import { outboundRequest } from '#shared/outbound/request.ts';
import { storeAccountUpload } from '#shared/storage/uploads.ts';
import { MAX_UPLOAD_IMAGE_BYTES, type Upload } from './schemas.ts';

// An account's own uploads (Chatwoot's `POST …/upload`): an image the dashboard then names, a portal's logo by
// its `blob_id` (shared/domain/help-center/service.ts) or an article's image by its `file_url`. Only PNG, JPEG,
// GIF and WebP are kept, told by the file's bytes (not its name or declared type): the files are shown on
// public pages, and no other kind of file has a use there.

const EXTERNAL_TIMEOUT_MS = 10_000;

const fileName = (name: string) => name.replace(/[/\\]/g, '_').slice(0, 255) || 'file';

/** Chatwoot's `create_from_url`: the URL's file, fetched through the outbound address guard. */
async function fetchExternal(url: string): Promise<{ data: Buffer; filename: string }> {
  const res = await outboundRequest({
    method: 'GET',
    url,
    timeoutMs: EXTERNAL_TIMEOUT_MS,
    targets: config().webhookTargets,
    maxResponseBytes: MAX_UPLOAD_IMAGE_BYTES,
    maxRedirects: 3,
  });
  if (res.status === undefined || res.status < 200 || res.status >= 300) {
    const why = res.status !== undefined ? `the server answered ${res.status}` : (res.error ?? 'no answer');
    throw invalidField('external_url', `Failed to fetch file from URL: ${why}`, 'unreachable');
  }
  const last = new URL(url).pathname.split('/').pop() ?? '';
  let name = last;
  try {
    name = decodeURIComponent(last);
  } catch {
    // A malformed escape: the name as written.
  }
  return { data: res.body, filename: name };
}

/** `POST …/upload`: stores the image; Chatwoot's `{file_url, blob_key, blob_id}`. */
export async function uploadFile(accountId: number, input: Upload) {
  const field = input.attachment ? 'attachment' : 'external_url';
  const file = input.attachment
    ? { data: input.attachment.data, filename: input.attachment.filename }
    : input.external_url
      ? await fetchExternal(input.external_url)
      : undefined;
  if (!file) throw unprocessable([{ field: 'attachment', message: 'No file or URL provided', code: 'blank' }], 'No file or URL provided');
  if (!file.data.length) throw invalidField(field, 'is empty', 'blank');
  const type = imageTypeOf(file.data);
  if (!type) throw invalidField(field, 'must be a PNG, JPEG, GIF or WebP image', 'invalid_type');
  const { blob, blobId, fileUrl } = await storeAccountUpload(accountId, file.data, fileName(file.filename), type);
  return { file_url: fileUrl, blob_key: blob.key.slice(blob.key.lastIndexOf('/') + 1), blob_id: blobId };
}
