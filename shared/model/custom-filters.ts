export const FILTER_TYPES = ['conversation', 'contact', 'report'] as const;
export type FilterType = (typeof FILTER_TYPES)[number];

/** A saved view, private to the user who made it. Timestamps are ISO strings, as Chatwoot renders them. */
export interface CustomFilterRecord {
  id: number;
  account_id: number;
  user_id: number;
  name: string;
  filter_type: FilterType;
  query: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  version: number;
}
