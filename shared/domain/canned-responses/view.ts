import type { CannedResponseRecord } from '#shared/model/canned-responses.ts';

/** Chatwoot renders the row itself (`render json: canned_response`). */
export const cannedResponseJson = (c: CannedResponseRecord) => ({
  id: c.id,
  account_id: c.account_id,
  short_code: c.short_code,
  content: c.content,
  created_at: c.created_at,
  updated_at: c.updated_at,
});
