import type { Role } from './identity.ts';

// Stored records of the realtime area. Connection times are epoch milliseconds (the pinger orders by
// them); presence times are Unix seconds like the rest of the table.

export interface CableConnection {
  connection_id: string;
  connected_at: number;
  /** When the record may be forgotten (API Gateway closes every connection after 2 hours). */
  expires_at: number;
  /** The welcome frame went out (deployed, the pinger sends it once the connection is open). */
  welcomed: boolean;
  /** `<account_id>|<identifier hash>` of each subscription, to remove them with the connection. */
  subscriptions: string[];
  attempts?: number;
  /** SHA-256 of the client's address, whose socket count the connection holds a slot of (released with it). */
  address_hash?: string;
}

/** Who a subscription speaks for: a user of an account, or a contact through one contact inbox. */
export interface CableSubscription {
  connection_id: string;
  /** Exactly as the client sent it: data frames echo it. */
  identifier: string;
  identifier_hash: string;
  account_id: number;
  kind: 'user' | 'contact';
  user_id: number | null;
  role: Role | null;
  contact_id: number | null;
  /** The contact inbox's pubsub token (contact subscriptions). */
  pubsub_token: string | null;
  /** The contact inbox is HMAC-verified: it hears the conversations of all its contact's verified inboxes. */
  hmac_verified: boolean;
  created_at: number;
}

export interface PresenceRecord {
  account_id: number;
  kind: 'user' | 'contact';
  id: number;
  seen_at: number;
}
