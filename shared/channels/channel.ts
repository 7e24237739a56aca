import type {
  IncomingContact,
  IncomingDeletion,
  IncomingEdit,
  IncomingFile,
  IncomingMessage,
  ProviderStatus,
  Watermark,
} from '#shared/domain/channels/types.ts';
import type { OutgoingContext, SentOutcome } from '#shared/domain/channels/send.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import { ServiceError } from '#shared/errors.ts';
import type { InboundItem } from '#shared/queues/channels.ts';

// THE channel interface (docs/channels.md#the-interface): what every channel room (shared/channels/<room>/)
// implements. A room knows its provider: the webhook's request (which inbox, its signature, its payload) and the
// provider's API (media, send). The rules that are the same for every channel live in shared/domain/channels/,
// and the machinery around a room (ingest, the two consumers, provider HTTP) in the files beside this one.

/** A provider's JSON (a payload, an answer): read field by field, each value checked where it is used. */
// biome-ignore lint/suspicious/noExplicitAny: provider JSON is untyped by nature; readers check every value they take.
export type ProviderJson = any;

/** A provider's webhook as the ingest function read it. */
export interface WebhookRequest {
  method: string;
  /** The path as requested, `+` kept (Twilio signs the public URL). */
  path: string;
  params: Record<string, string>;
  query: Record<string, string>;
  /** The query string exactly as requested, without `?` (Twilio signs the exact URL). */
  rawQuery?: string;
  /** Lower-cased names. */
  headers: Record<string, string>;
  /** The exact bytes (signatures are over them). */
  body: Buffer;
}

export interface WebhookAnswer {
  status: number;
  body?: string | Record<string, unknown>;
  contentType?: string;
}

/**
 * A refused webhook: Chatwoot's `error` text (what its providers and scripts read) inside the service's error body
 * (docs/api.md), so every 4xx carries `description` and `errors` as all others do.
 */
export const refusedAnswer = (status: number, error: string, field: string, code: string): WebhookAnswer => ({
  status,
  body: { error, ...new ServiceError('unauthorized', error, [{ field, message: error, code }]).body },
});

/** Where a room finds a file the provider holds (its own shape: a media id, a URL). */
export type MediaRef = Record<string, string | undefined>;

/** What a payload says, provider-neutral. */
export type ChannelEvent =
  | { type: 'message'; message: IncomingMessage; media: MediaRef[] }
  | { type: 'status'; status: ProviderStatus }
  /** A contact's edit of a message it sent (Telegram): a `message_updated` with the new text. */
  | { type: 'edit'; edit: IncomingEdit }
  /** The contact got or read everything up to a time (Messenger's delivery and read watermarks). */
  | { type: 'watermark'; watermark: Watermark }
  /** A contact's unsend (Instagram): the message shows "This message was deleted", a `message_updated`. */
  | { type: 'deleted'; deleted: IncomingDeletion }
  /** Something the room does not store (a reaction, an unsupported type), kept for the log. */
  | { type: 'skipped'; reason: string };

/** How a send ended: the provider's id, a refusal to record (4xx: its text), or a failure worth retrying (429/5xx/network). */
export type SendOutcome = SentOutcome | { refused: string } | { retry: string };

export interface ChannelRoom {
  /** The room's name: the `room` of its queued webhooks, its folder. */
  kind: string;
  /** The inbox channel type(s) whose messages it sends. */
  channelTypes: InboxRecord['channel_type'][];
  /** A room whose provider calls a webhook route (absent for email, whose ways in are its own: shared/channels/email). */
  ingest?: {
    /** A request answered without the inbox's payload (WhatsApp's GET verify handshake). */
    handshake?(req: WebhookRequest): Promise<WebhookAnswer | undefined>;
    /** The inbox the webhook is for: one key lookup. */
    inbox(req: WebhookRequest): Promise<InboxRecord | undefined>;
    /** Instead of `inbox`, when one payload may be for several inboxes (Messenger: several pages' entries). */
    inboxes?(req: WebhookRequest): Promise<InboxRecord[]>;
    /**
     * A signature keyed by no inbox (Meta's app secret): checked before any inbox is looked up, so a forged payload
     * costs no table read. A missing one is false like a wrong one.
     */
    verifyRequest?(req: WebhookRequest): boolean;
    /**
     * The provider's signature over the raw request, keyed by the inbox; a missing one is false like a wrong one.
     * A room may leave it out only when `verifyRequest` checks every request.
     */
    verify?(req: WebhookRequest, inbox: InboxRecord): boolean;
    /** The payload's events (pure: ingest and the consumer both call it). */
    parse(body: string, contentType: string, inbox: InboxRecord): ChannelEvent[];
    /** What the provider expects once the webhook is taken. */
    accepted: WebhookAnswer;
  };
  /** The provider's templates now (`POST /inboxes/{id}/sync_templates`); undefined when this inbox has none (a Twilio SMS). */
  syncTemplates?(inbox: InboxRecord): Promise<Partial<InboxRecord> | undefined>;
  /** A file the provider holds, downloaded within the bounds (undefined when it cannot be had). */
  fetchMedia(inbox: InboxRecord, ref: MediaRef): Promise<IncomingFile | undefined>;
  /**
   * A room that handles its queued items itself instead of parsing them into events (email: a raw mail, parsed,
   * threaded and stored through the domain's receive).
   */
  receive?(item: InboundItem, inbox: InboxRecord): Promise<void>;
  send(ctx: OutgoingContext): Promise<SendOutcome>;
  /**
   * The provider's side of creating or changing an inbox (Telegram: the bot's name, its webhook registered): the
   * inbox as it is to be stored, or a ServiceError (422) the API answers with; nothing is stored then. `before` is
   * the stored inbox on a change.
   */
  setup?(inbox: InboxRecord, before?: InboxRecord): Promise<InboxRecord>;
  /**
   * The provider's profile of a contact the inbox does not know yet (LINE: its display name): asked only before a
   * new contact is made; a failure makes the contact without it.
   */
  profile?(inbox: InboxRecord, contact: IncomingContact): Promise<Partial<IncomingContact> | undefined>;
}

/**
 * A room's webhook side alone (`<room>/webhook.ts`, spread into its room): what the room's webhook function loads,
 * without the code of its sends and setup (their markup and template libraries).
 */
export type RoomWebhook = Pick<ChannelRoom, 'kind'> & { ingest: NonNullable<ChannelRoom['ingest']> };

/** A string setting of the inbox's `provider_config` ('' when absent). */
export function providerSetting(inbox: InboxRecord, key: string): string {
  const v = inbox.provider_config?.[key];
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '';
}

/** The contact key of an event (the queue's ordering group within the inbox), or undefined. */
export const contactKeyOf = (e: ChannelEvent): string | undefined =>
  e.type === 'message'
    ? e.message.contact.sourceId
    : e.type === 'status'
      ? `status:${e.status.providerId}`
      : e.type === 'edit'
        ? e.edit.contactSourceId
        : e.type === 'watermark'
          ? e.watermark.contactSourceId
          : e.type === 'deleted'
            ? e.deleted.contactSourceId
            : undefined;

/** What identifies an event at the provider (the queue's deduplication). */
export const eventIdOf = (e: ChannelEvent): string =>
  e.type === 'message'
    ? `m:${e.message.claimKey ?? e.message.providerId}`
    : e.type === 'status'
      ? `s:${e.status.providerId}:${e.status.status}`
      : e.type === 'edit'
        ? `e:${e.edit.eventId}`
        : e.type === 'watermark'
          ? `w:${e.watermark.contactSourceId}:${e.watermark.status}:${e.watermark.at}`
          : e.type === 'deleted'
            ? `d:${e.deleted.claimKey}`
            : `x:${e.reason}`;
