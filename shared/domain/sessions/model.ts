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

/** A one-time token (password reset request, SSO link): keyed by its SHA-256, deleted when used. */
export interface OneTimeTokenRecord {
  user_id: number;
  email: string;
  expires_at: number;
  created_at: number;
  /** The token sealed for the sender that mails it (password reset); absent where nobody mails it. */
  sealed_token?: string;
}
