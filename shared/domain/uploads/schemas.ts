import * as v from 'valibot';
import { isUploadedFile, type FilePart } from '#shared/model/uploads.ts';
import { HttpUrl } from '../schemas.ts';

// `POST /api/v1/accounts/{account_id}/upload` (Chatwoot's Accounts::UploadController): a multipart `attachment`,
// or an `external_url` the service fetches. Either may be absent here; the service says when both are.

/** The most an uploaded image may weigh: what a multipart body carries to a function (docs/api.md). */
export const MAX_UPLOAD_IMAGE_BYTES = 4 * 1024 * 1024;
/** The route takes bodies up to this size: a 4 MiB image and the multipart around it. */
export const MAX_UPLOAD_ROUTE_BODY_BYTES = MAX_UPLOAD_IMAGE_BYTES + 256 * 1024;

export const UploadSchema = v.object({
  attachment: v.optional(
    v.pipe(
      v.custom<FilePart>(isUploadedFile, 'must be an uploaded file (a multipart part)'),
      v.check((f) => f.size > 0, 'is empty'),
      v.check((f) => f.size <= MAX_UPLOAD_IMAGE_BYTES, 'is larger than 4 MB'),
    ),
  ),
  // Rails' `present?`: an empty string is as absent as none.
  external_url: v.optional(
    v.union(
      [
        v.pipe(
          v.literal(''),
          v.transform(() => undefined),
        ),
        HttpUrl,
      ],
      'must be an http or https URL',
    ),
  ),
});

export type Upload = v.InferOutput<typeof UploadSchema>;
