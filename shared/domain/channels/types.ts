import type { ConversationRecord } from '#shared/model/conversations.ts';
import type { AttachmentRecord, ContentType, MessageStatus } from '#shared/model/messages.ts';

// What every channel's provider traffic comes down to, whichever provider sent it (docs/channels.md): a contact's
// message, and a status of a message we sent. The channel rooms (shared/channels/<room>/) turn provider payloads
// into these; the rules below (receive.ts, status.ts) are the same for every channel.

/** Who wrote, as the provider names them. */
export interface IncomingContact {
  /** The contact inbox's `source_id` (a WhatsApp `wa_id`, a phone number, `whatsapp:+…`). */
  sourceId: string;
  /** Other forms of the same address, used only when a contact inbox already has one (Brazil/Argentina numbers). */
  aliases?: string[];
  name?: string | null;
  /**
   * Without a `name`, the number that names the contact (in international form when valid): Chatwoot names an SMS or
   * WhatsApp sender without a profile name so. Formatted by the consumer (receive.ts), not the webhook, which loads no
   * phone-number metadata.
   */
  nameNumber?: string;
  phone_number?: string | null;
  email?: string | null;
  identifier?: string | null;
  additional_attributes?: Record<string, unknown>;
}

/** A file the room downloaded from the provider. */
export interface IncomingFile {
  filename: string;
  content_type: string;
  data: Buffer;
}

/** An attachment without a file (a location, a contact card). */
export type IncomingPlace = Omit<AttachmentRecord, 'id' | 'message_id' | 'account_id'>;

export interface IncomingMessage {
  /** The provider's id of the message: the message's `source_id`. */
  providerId: string;
  /**
   * What makes it unique in the inbox (the provider id, unless one provider message becomes several messages:
   * WhatsApp's shared contacts are one message each).
   */
  claimKey?: string;
  contact: IncomingContact;
  content: string | null;
  /** The message's `content_type` when not `text` (LINE's sticker: `sticker`; a mail: `incoming_email`). */
  contentType?: ContentType;
  /**
   * The claim key of the message this one replies to, when the room's claim keys are not the provider's ids (Telegram:
   * chat and message id); absent, `in_reply_to_external_id` is the key.
   */
  inReplyToClaimKey?: string;
  /** Chatwoot's content attributes (`in_reply_to_external_id` of a reply). */
  contentAttributes?: Record<string, unknown>;
  places?: IncomingPlace[];
  /** A new conversation's `additional_attributes` (Twilio SMS: the sender's zip, state and country). */
  conversationAttributes?: Record<string, unknown>;
  /**
   * The conversation the room chose (email threads by its headers): the message joins it, from its contact; `new`
   * always starts one. Absent: the contact inbox's conversation as the inbox's settings say.
   */
  conversation?: ConversationRecord | 'new';
  /**
   * A copy of a message the business sent outside the service (a Telegram business owner writing in the app, a
   * Messenger page's echo): stored as outgoing, without a sender, and never sent again (it has its `source_id`).
   */
  echo?: boolean;
}

/** A contact's change to a message it sent (Telegram's edited messages): the new text replaces the stored one. */
export interface IncomingEdit {
  /** The stored message's claim key (what `IncomingMessage.claimKey` was). */
  claimKey: string;
  /** The contact's address: the queue's ordering group, as for its messages. */
  contactSourceId: string;
  content: string | null;
  /** The provider's id of this delivery (Telegram's `update_id`): the queue's deduplication. */
  eventId: string;
}

/** A contact took back a message it sent (Instagram's unsend): the stored message shows it deleted. */
export interface IncomingDeletion {
  claimKey: string;
  contactSourceId: string;
}

/** A contact got (`delivered`) or read everything sent to it up to `at` (Messenger's watermarks). */
export interface Watermark {
  contactSourceId: string;
  status: 'delivered' | 'read';
  /** Unix seconds (Meta sends milliseconds; the room converts). */
  at: number;
}

/** A provider's report on a message we sent. */
export interface ProviderStatus {
  providerId: string;
  status: Exclude<MessageStatus, never>;
  /** With `failed`: the provider's error in the channel's format (`content_attributes.external_error`). */
  error?: string;
  /** The status holds for every earlier outgoing message of the conversation too (Instagram's read receipt). */
  through?: boolean;
}

/** A location or contact card as an attachment record without a file. */
export const place = (fields: Partial<IncomingPlace> & Pick<IncomingPlace, 'file_type'>): IncomingPlace => ({
  extension: null,
  data_url: '',
  thumb_url: '',
  file_size: 0,
  width: null,
  height: null,
  filename: '',
  content_type: '',
  ...fields,
});
