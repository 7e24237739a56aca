// Stored records of the contacts area (snake_case, as the API shows them; timestamps in Unix seconds).

/** Chatwoot promotes a visitor to a lead once it has an email, a phone or a social profile; never back. */
export type ContactType = 'visitor' | 'lead' | 'customer';

export interface ContactRecord {
  id: number;
  account_id: number;
  name: string;
  /** Lower-cased; unique per account. */
  email: string | null;
  /** E.164; unique per account. */
  phone_number: string | null;
  /** Unique per account, case-sensitive. */
  identifier: string | null;
  /** Avatar address; `""` when none. */
  thumbnail: string;
  additional_attributes: Record<string, unknown>;
  custom_attributes: Record<string, unknown>;
  labels: string[];
  last_activity_at: number | null;
  contact_type: ContactType;
  blocked: boolean;
  /** Copied from additional_attributes.city / .country on every save, as Chatwoot does. */
  location: string | null;
  country_code: string | null;
  created_at: number;
  updated_at: number;
  /** Optimistic concurrency: every write requires the version it read and bumps it. */
  version: number;
  /** The company it belongs to (linked on create by its email's business domain); absent or null: none. */
  company_id?: number | null;
}

/** A contact's address in one inbox; (inbox_id, source_id) is unique. */
export interface ContactInboxRecord {
  id: number;
  account_id: number;
  contact_id: number;
  inbox_id: number;
  source_id: string;
  /** Per contact inbox, for the public interface's websocket channel. */
  pubsub_token: string;
  hmac_verified: boolean;
  created_at: number;
  updated_at: number;
}

/** A note an agent keeps on a contact (Chatwoot `notes` row). */
export interface ContactNoteRecord {
  id: number;
  account_id: number;
  contact_id: number;
  content: string;
  /** The author. */
  user_id: number;
  created_at: number;
  updated_at: number;
  version: number;
}

/** A company of an account (Chatwoot `companies` row); contacts link to it by `company_id`. */
export interface CompanyRecord {
  id: number;
  account_id: number;
  name: string;
  /** Lower-cased business domain, unique in the account; new contacts with an email on it are linked. */
  domain: string | null;
  description: string | null;
  contacts_count: number;
  created_at: number;
  updated_at: number;
  version: number;
}
