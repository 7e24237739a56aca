// The mail room's records: a request (the outbox item a service writes) and a mail (what the pipeline
// renders from it and hands the sender).

interface RequestBase {
  /** Random; the outbox item's key and, on the mail queue, the deduplication key of the mail. */
  id: string;
  created_at: number;
  /** The outbox item expires (TTL) a few days after it was written; it is needed only on the stream. */
  expires_at: number;
}

/** Devise's `reset_password_instructions`: the one-time token travels sealed, as it is stored. */
export interface PasswordResetMailRequest extends RequestBase {
  kind: 'password_reset';
  user_id: number;
  to: string;
  sealed_token: string;
}

/** Chatwoot's `ConversationReplyMailer#conversation_transcript`. */
export interface TranscriptMailRequest extends RequestBase {
  kind: 'conversation_transcript';
  account_id: number;
  /** The conversation's display id. */
  conversation_id: number;
  to: string;
}

export type MailRequestRecord = PasswordResetMailRequest | TranscriptMailRequest;

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
