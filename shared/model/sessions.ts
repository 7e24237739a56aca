// Stored records of the sessions area (devise_token_auth semantics). Times are Unix seconds.

/** One signed-in client of a user: the item is keyed by the SHA-256 of its access token. */
export interface SessionRecord {
  /** SHA-256 of the access token (the token itself is never stored). */
  token_hash: string;
  user_id: number;
  /** devise_token_auth's `client` id: one per device or browser that signed in. */
  client: string;
  /** The `uid` header the client must send back (the email it signed in with). */
  uid: string;
  expiry: number;
  created_at: number;
  /** Set on sessions opened through a platform SSO link. */
  via_sso?: boolean;
}

/** A one-time token (SSO link): keyed by its SHA-256, deleted when used. */
export interface OneTimeTokenRecord {
  user_id: number;
  email: string;
  expires_at: number;
  created_at: number;
}

/**
 * A user's password reset: one item per user holding only the newest link's token (by its SHA-256), so a
 * newer request or a use kills every older link. A used link leaves the item without a token (a tombstone
 * that keeps `requested_at`, so a late retry of an older request cannot issue again).
 */
export interface PasswordResetRecord {
  user_id: number;
  /** Absent once used. */
  token_hash?: string;
  /** The token sealed, so a retried dispatch of the same request mails the same link. */
  sealed_token?: string;
  /** The mail request (outbox item) that issued it. */
  request_id: string;
  /** When that request was made. */
  requested_at: number;
  expires_at: number;
  created_at: number;
  used_at?: number;
}
