/**
 * The contract's eight event kinds (docs/contract.md#webhook-event-kinds); also the default subscription set, as in
 * Chatwoot.
 */
export const DEFAULT_SUBSCRIPTIONS = [
  'conversation_created',
  'conversation_status_changed',
  'conversation_updated',
  'message_created',
  'message_updated',
  'contact_created',
  'contact_updated',
  'webwidget_triggered',
] as const;

/** Everything Chatwoot 4.10 accepts (docs/chatwoot.md#webhook-routes-and-fields). */
export const WEBHOOK_EVENTS = [
  ...DEFAULT_SUBSCRIPTIONS,
  'conversation_typing_on',
  'conversation_typing_off',
  'inbox_created',
  'inbox_updated',
] as const;

export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export interface WebhookRecord {
  id: number;
  account_id: number;
  name: string | null;
  url: string;
  subscriptions: WebhookEvent[];
  /** Stored and shown, as in Chatwoot 4.10, where it does not narrow delivery either. */
  inbox_id: number | null;
  /** Signing secret (`whsec_<base64>`): Chatwoot's and Standard Webhooks' signatures use it. */
  secret: string;
  created_at: number;
  updated_at: number;
  version: number;
}
