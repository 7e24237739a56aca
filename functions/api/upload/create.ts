import { apiHandler } from '#shared/http/handler.ts';
import { parseMultipart } from '#shared/http/multipart.ts';
import { uploadFile } from '#shared/domain/uploads/service.ts';
import { MAX_UPLOAD_ROUTE_BODY_BYTES, UploadSchema } from '#shared/domain/uploads/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

// `POST /api/v1/accounts/{account_id}/upload`: an image the dashboard then names (a portal's logo, an article's image).
export const handler = apiHandler({
  access: 'member',
  body: bodyOf(UploadSchema),
  multipart: parseMultipart,
  maxBodyBytes: MAX_UPLOAD_ROUTE_BODY_BYTES,
  run: ({ account, body }) => uploadFile(account.id, body),
});
