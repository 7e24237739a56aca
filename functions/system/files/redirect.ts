import { fileRedirect } from '#shared/http/file-redirect.ts';

// `GET /rails/active_storage/blobs/redirect/{signed_id}/{filename}` (Chatwoot's blob path): no credential,
// the signed id is one (file links reach widget visitors, webhook receivers and mail recipients too).
export const handler = fileRedirect;
