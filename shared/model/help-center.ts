/** The help center's records (Chatwoot `portals`, `categories`, `articles` rows). Timestamps are ISO-8601 strings. */

export type ArticleStatus = 'draft' | 'published' | 'archived';
export const ARTICLE_STATUSES: readonly ArticleStatus[] = ['draft', 'published', 'archived'];

export interface PortalConfig {
  allowed_locales: string[];
  default_locale: string;
}

/** A portal's logo (Chatwoot's `has_one_attached :logo`): an image the account uploaded (`POST …/upload`). */
export interface PortalLogo {
  /** The attachment's id (Chatwoot's `logo.id`). */
  id: number;
  /** Storage key, under the account's uploads. */
  key: string;
  filename: string;
  content_type: string;
  byte_size: number;
  /** The upload's `blob_id`, which names this file again (Chatwoot's `logo.blob.signed_id`). */
  blob_id: string;
}

export interface PortalRecord {
  id: number;
  account_id: number;
  name: string;
  /** Unique across the deployment (the public pages' `/hc/{slug}` names it without an account). */
  slug: string;
  /** A host name, unique across the deployment; null without one. */
  custom_domain: string | null;
  color: string | null;
  homepage_link: string | null;
  page_title: string | null;
  header_text: string | null;
  archived: boolean;
  config: PortalConfig;
  /** Absent on portals written before logos were kept. */
  logo?: PortalLogo | null;
  created_at: string;
  updated_at: string;
  version: number;
}

export interface CategoryRecord {
  id: number;
  account_id: number;
  portal_id: number;
  name: string;
  /** Unique per portal and locale, as Chatwoot's (slug, locale, portal_id) index. */
  slug: string;
  locale: string;
  description: string | null;
  position: number | null;
  parent_category_id: number | null;
  associated_category_id: number | null;
  related_category_ids: number[];
  created_at: string;
  updated_at: string;
  version: number;
}

export interface ArticleRecord {
  id: number;
  account_id: number;
  portal_id: number;
  category_id: number | null;
  author_id: number;
  title: string;
  /** Unique per portal (the public article page names it). */
  slug: string;
  /** Markdown. */
  content: string;
  description: string | null;
  status: ArticleStatus;
  locale: string;
  position: number | null;
  meta: Record<string, unknown>;
  /** Counted by the public article page (an atomic add, outside the record's version). */
  views: number;
  associated_article_id: number | null;
  created_at: string;
  updated_at: string;
  version: number;
}
