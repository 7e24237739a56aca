/** A canned response (Chatwoot `canned_responses` row). Timestamps are ISO-8601 strings, as Chatwoot renders the row. */
export interface CannedResponseRecord {
  id: number;
  account_id: number;
  short_code: string;
  content: string;
  created_at: string;
  updated_at: string;
  version: number;
}
