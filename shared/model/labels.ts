/** An account label (Chatwoot `labels` row). Titles are stored lower-cased, as Chatwoot does. */
export interface LabelRecord {
  id: number;
  account_id: number;
  title: string;
  description: string | null;
  color: string;
  show_on_sidebar: boolean;
  created_at: number;
  updated_at: number;
  version: number;
}
