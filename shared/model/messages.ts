// Stored message record: the fields of Chatwoot's message JSON (docs/chatwoot.md#conversation-json for a message
// inside a conversation, docs/chatwoot.md#message-json), snake_case. Timestamps are Unix seconds.

/** REST shows the integer, webhooks the name (docs/chatwoot.md#message-enumerations). */
export const MESSAGE_TYPES = ['incoming', 'outgoing', 'activity', 'template'] as const;
export type MessageTypeName = (typeof MESSAGE_TYPES)[number];
export type MessageType = 0 | 1 | 2 | 3;

export const CONTENT_TYPES = [
  'text',
  'input_text',
  'input_textarea',
  'input_email',
  'input_select',
  'cards',
  'form',
  'article',
  'incoming_email',
  'input_csat',
  'integrations',
  'sticker',
  'voice_call',
] as const;
export type ContentType = (typeof CONTENT_TYPES)[number];

export const MESSAGE_STATUSES = ['sent', 'delivered', 'read', 'failed'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

export type SenderType = 'User' | 'Contact' | 'AgentBot';

/** Who caused a change; stored on changed items so the event pipeline can tell (`performed_by`). */
export interface Performer {
  /** `automation_rule`: changes made by a rule's actions; they trigger no rule (loop guard). */
  type: 'user' | 'agent_bot' | 'contact' | 'automation_rule' | 'campaign' | 'channel';
  id: number;
}

export interface AttachmentRecord {
  id: number;
  message_id: number;
  account_id: number;
  /** `location` and `contact`: no file, only the fields below (a channel's shared place or contact card). */
  file_type: 'image' | 'audio' | 'video' | 'file' | 'location' | 'contact' | 'fallback';
  extension: string | null;
  /** The stored file's reference (`stored:<key>`, or an older `…/avatars/<base64url key>` URL), never shown as is: views sign it. */
  data_url: string;
  thumb_url: string;
  file_size: number;
  width: number | null;
  height: number | null;
  filename: string;
  content_type: string;
  // Location and contact attachments (Chatwoot's attachment columns of the same names).
  coordinates_lat?: number | null;
  coordinates_long?: number | null;
  fallback_title?: string | null;
  external_url?: string | null;
  meta?: Record<string, unknown> | null;
}

export interface MessageRecord {
  id: number;
  account_id: number;
  inbox_id: number;
  /** The conversation's display id. */
  conversation_id: number;
  message_type: MessageType;
  content: string | null;
  content_type: ContentType;
  content_attributes: Record<string, unknown>;
  status: MessageStatus;
  private: boolean;
  source_id: string | null;
  sender_type: SenderType | null;
  sender_id: number | null;
  external_source_ids: Record<string, unknown>;
  additional_attributes: Record<string, unknown>;
  processed_message_content: string | null;
  sentiment: Record<string, unknown>;
  attachments: AttachmentRecord[];
  /** A channel's send in progress (shared/domain/channels/send.ts): who claimed it, and when. */
  send_claim?: string;
  /** Set only by the request that created the message; echoed back once. */
  echo_id?: string;
  created_at: number;
  updated_at: number;
  performed_by: Performer | null;
}

export const messageTypeName = (t: MessageType): MessageTypeName => MESSAGE_TYPES[t];
