// A contacts import (Chatwoot's DataImport of `data_type: 'contacts'`): the job item the request writes and the
// pipeline works through, one chunk of rows at a time (shared/domain/contacts/import.ts).

export interface ContactImportRecord {
  /** Random; names the stored file and the result mail. */
  id: string;
  account_id: number;
  /** The administrator who imported (the result is mailed to them). */
  user_id: number;
  to: string;
  /** Where the uploaded CSV is stored. */
  file_key: string;
  /** Data rows in the file (the header row not counted). */
  total_records: number;
  /** `processing` until every row is done; then `completed` (the result mail is requested). */
  status: 'processing' | 'completed';
  /** The next data row to import (0-based); every chunk moves it on, and that change brings the next chunk. */
  cursor: number;
  /** Rows imported (created or updated), of which `non_identifiable_records` have no email, phone number or identifier. */
  processed_records: number;
  non_identifiable_records: number;
  /** Rows refused, each with its reasons (the failed-records CSV). */
  failed_records: number;
  /** Where the failed-records CSV is stored, once written. */
  failed_key?: string;
  created_at: number;
  /** The job and its row marks expire (TTL) a week after the import started. */
  expires_at: number;
}

/** One refused row of a chunk: its index among the data rows and Chatwoot's `errors.full_messages`, joined. */
export interface FailedRow {
  row: number;
  errors: string;
}
