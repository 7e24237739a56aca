/** Chatwoot's Campaign: ongoing (website inboxes: a message shown to visitors by trigger rules) or one-off. */
export interface CampaignRecord {
  /** Per-account sequence; the API's `id`. */
  display_id: number;
  account_id: number;
  inbox_id: number;
  title: string;
  description: string | null;
  message: string;
  /** The user the campaign's message is sent as; null: no sender (Chatwoot's "bot"). */
  sender_id: number | null;
  enabled: boolean;
  trigger_only_during_business_hours: boolean;
  /** Website campaigns: `{url, time_on_page}` (any object is kept, as Chatwoot's jsonb). */
  trigger_rules: Record<string, unknown>;
  campaign_type: 'ongoing' | 'one_off';
  campaign_status: 'active' | 'completed';
  /** One-off campaigns only. */
  scheduled_at: number | null;
  audience: { type: string; id: number }[];
  created_at: number;
  updated_at: number;
  version: number;
}
