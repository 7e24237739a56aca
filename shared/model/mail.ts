// The mail room's records: a request (the outbox item a service writes) and a mail (what the pipeline
// renders from it and hands the sender).

interface RequestBase {
  /** Random; the outbox item's key and, on the mail queue, the deduplication key of the mail. */
  id: string;
  created_at: number;
  /** The outbox item expires (TTL) a few days after it was written; it is needed only on the stream. */
  expires_at: number;
}

/**
 * Devise's `reset_password_instructions`: only the email typed (normalized). The pipeline finds its user
 * and issues the link (sessions/reset.ts); nobody's email, no mail. (Requests written before carry a
 * `user_id` and a sealed token of an older scheme too: they are read as the email alone.)
 */
export interface PasswordResetMailRequest extends RequestBase {
  kind: 'password_reset';
  to: string;
}

/** Chatwoot's `ConversationReplyMailer#conversation_transcript`. */
export interface TranscriptMailRequest extends RequestBase {
  kind: 'conversation_transcript';
  account_id: number;
  /** The conversation's display id. */
  conversation_id: number;
  to: string;
}

/**
 * Chatwoot's Account::ContactsExportJob: the account's contacts (those the filter picks) as CSV, stored, and a link
 * to it mailed to the administrator who asked (AccountNotificationMailer#contact_export_complete).
 */
export interface ContactsExportMailRequest extends RequestBase {
  kind: 'contacts_export';
  account_id: number;
  to: string;
  /** Contact columns, in order (already checked against the ones Chatwoot exports). */
  columns: string[];
  /** `POST /contacts/filter`'s conditions, when given; else `label`, when given; else every listed contact. */
  payload?: unknown[];
  label?: string;
}

/**
 * Chatwoot's DataImportJob result (AccountNotificationMailer#contact_import_complete): the counts, and a link to the
 * failed-records CSV when rows were refused, mailed to each of the account's administrators.
 */
export interface ContactsImportMailRequest extends RequestBase {
  kind: 'contacts_import';
  account_id: number;
  to: string;
  total_records: number;
  processed_records: number;
  non_identifiable_records: number;
  failed_records: number;
  /** The failed-records CSV, when rows were refused. */
  failed_key?: string;
}

export type MailRequestRecord = PasswordResetMailRequest | TranscriptMailRequest | ContactsExportMailRequest | ContactsImportMailRequest;

/**
 * What travels on the mail queue (and so, should it fail, on its dead-letter queue). A mail carrying a
 * secret (a reset link) travels sealed with the token key — everything but its id and kind — and the mail
 * function opens it right before sending.
 */
export type QueuedMail = Mail | SealedMail | ReplyMail;

/**
 * A conversation continuity mail (Chatwoot's ConversationReplyMailer for web widget and API conversations): an
 * agent's reply mailed to the contact with the conversation's threading headers; files are linked, not attached.
 */
export interface ReplyMail extends ThreadedMail {
  /** `reply:<account>:<message id>`: the queue's deduplication (one mail per message). */
  id: string;
  kind: 'conversation_reply';
}

/** A mail in a conversation's thread: its own sender, recipients and threading headers, HTML and text. */
export interface ThreadedMail {
  from: string;
  replyTo: string;
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  /** With brackets. */
  messageId: string;
  inReplyTo: string;
  references: string[];
  html: string;
  text: string;
}

export interface SealedMail {
  id: string;
  kind: Mail['kind'];
  /** `seal(JSON of {to, subject, html, text})`. */
  sealed: string;
}

/** A mail ready to send. */
export interface Mail {
  /** The request's id. */
  id: string;
  kind: MailRequestRecord['kind'];
  to: string;
  subject: string;
  html: string;
  text: string;
}
