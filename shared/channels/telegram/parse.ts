import { place, type IncomingMessage, type IncomingPlace } from '#shared/domain/channels/types.ts';
import type { ChannelEvent, MediaRef, ProviderJson } from '../channel.ts';

// Telegram's webhook Update (Bot API: one update per request, `update_id` and one of `message`, `business_message`,
// `edited_message`, `edited_business_message`, `callback_query`, …) → events, as Chatwoot reads it
// (docs/channels.md#telegram): private chats only; a business chat's contact is the chat, and a message the
// business owner wrote in the app (chat ≠ sender) is an echo, stored as outgoing.

type Json = Record<string, ProviderJson>;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined);

/**
 * What makes a message unique in the inbox: its chat and its `message_id` (unique within a chat), which every
 * redelivery of its update repeats, and by which an edit finds it.
 */
export const messageKey = (chatId: string, messageId: string) => `${chatId}:${messageId}`;

/** Chatwoot's contact of a Telegram user or business chat: the name and its `social_telegram_*` attributes. */
function contactOf(who: Json) {
  const id = str(who?.id)!;
  const username = str(who?.username);
  const name = [str(who?.first_name), str(who?.last_name)].filter(Boolean).join(' ');
  return {
    sourceId: id,
    name: name || null,
    additional_attributes: {
      username: username ?? null,
      language_code: str(who?.language_code) ?? null,
      social_telegram_user_id: Number.isSafeInteger(who?.id) ? who.id : id,
      social_telegram_user_name: username ?? null,
    },
  };
}

/** The message's file, as Chatwoot picks it: the largest photo, a sticker's thumbnail, video, voice/audio, document. */
function mediaOf(m: Json): MediaRef[] {
  const ref = (f: Json | undefined, kind: string): MediaRef[] =>
    f && str(f.file_id) ? [{ file_id: str(f.file_id), kind, mime: str(f.mime_type), filename: str(f.file_name) }] : [];
  if (Array.isArray(m.photo) && m.photo.length) {
    const largest = [...m.photo].sort((a: Json, b: Json) => (a?.file_size ?? a?.width ?? 0) - (b?.file_size ?? b?.width ?? 0)).pop();
    return ref(largest, 'image');
  }
  // The Bot API names a sticker's preview `thumbnail` (formerly `thumb`, which Chatwoot reads).
  if (m.sticker) return ref(m.sticker.thumbnail ?? m.sticker.thumb, 'image');
  if (m.video) return ref(m.video, 'video');
  if (m.video_note) return ref(m.video_note, 'video');
  if (m.voice) return ref(m.voice, 'audio');
  if (m.audio) return ref(m.audio, 'audio');
  if (m.document) return ref(m.document, 'file');
  return [];
}

function placesOf(m: Json): IncomingPlace[] {
  const where = m.venue?.location ?? m.location;
  if (where && typeof where === 'object') {
    return [
      place({
        file_type: 'location',
        coordinates_lat: Number(where.latitude),
        coordinates_long: Number(where.longitude),
        fallback_title: str(m.venue?.title) ?? '',
      }),
    ];
  }
  if (m.contact && typeof m.contact === 'object') {
    const meta = Object.fromEntries(
      Object.entries({ first_name: str(m.contact.first_name), last_name: str(m.contact.last_name) }).filter(([, v]) => v !== undefined),
    );
    return [place({ file_type: 'contact', fallback_title: str(m.contact.phone_number) ?? '', meta })];
  }
  return [];
}

function messageEvent(m: Json, business: boolean): ChannelEvent {
  const chat = m?.chat;
  if (chat?.type !== 'private') return { type: 'skipped', reason: `chat type ${str(chat?.type) ?? 'unknown'}` };
  const chatId = str(chat.id);
  const messageId = str(m.message_id);
  const connection = str(m.business_connection_id);
  if (!chatId || !messageId || (!business && !str(m.from?.id))) return { type: 'skipped', reason: 'message without chat or sender' };
  // A business chat's contact is the chat; a message whose sender is not the chat was written by the owner.
  const contact = business || connection ? contactOf(chat) : contactOf(m.from);
  const echo = !!connection && str(m.from?.id) !== chatId;
  const replyTo = str(m.reply_to_message?.message_id);
  const places = placesOf(m);
  const message: IncomingMessage = {
    providerId: messageId,
    claimKey: messageKey(chatId, messageId),
    contact,
    content: str(m.text) ?? str(m.caption) ?? null,
    ...(replyTo ? { contentAttributes: { in_reply_to_external_id: replyTo }, inReplyToClaimKey: messageKey(chatId, replyTo) } : {}),
    ...(places.length ? { places } : {}),
    conversationAttributes: { chat_id: Number.isSafeInteger(chat.id) ? chat.id : chatId, business_connection_id: connection ?? null },
    ...(echo ? { echo: true } : {}),
  };
  return { type: 'message', message, media: mediaOf(m) };
}

function editEvent(m: Json, updateId: string): ChannelEvent {
  const chatId = str(m?.chat?.id);
  const messageId = str(m?.message_id);
  if (!chatId || !messageId) return { type: 'skipped', reason: 'edit without chat' };
  return {
    type: 'edit',
    edit: {
      claimKey: messageKey(chatId, messageId),
      contactSourceId: chatId,
      content: str(m.text) ?? str(m.caption) ?? null,
      eventId: updateId,
    },
  };
}

function callbackEvent(q: Json): ChannelEvent {
  const id = str(q?.id);
  if (!id || !str(q?.from?.id)) return { type: 'skipped', reason: 'callback query without id' };
  const chat = q.message?.chat;
  const chatId = str(chat?.id) ?? str(q.from.id)!;
  return {
    type: 'message',
    message: {
      providerId: id,
      claimKey: `callback:${id}`,
      contact: contactOf(q.from),
      content: str(q.data) ?? null,
      conversationAttributes: { chat_id: Number.isSafeInteger(chat?.id) ? chat.id : chatId, business_connection_id: null },
    },
    media: [],
  };
}

/** The update's event (a message, an edit, a button pressed), or why it is not stored. */
export function parseTelegram(body: string): ChannelEvent[] {
  const u = JSON.parse(body) as Json;
  if (!u || typeof u !== 'object') return [];
  const updateId = str(u.update_id) ?? '';
  if (u.edited_message) return [editEvent(u.edited_message, updateId)];
  if (u.edited_business_message) return [editEvent(u.edited_business_message, updateId)];
  if (u.message) return [messageEvent(u.message, false)];
  if (u.business_message) return [messageEvent(u.business_message, true)];
  if (u.callback_query) return [callbackEvent(u.callback_query)];
  const kind = Object.keys(u).find((k) => k !== 'update_id') ?? 'empty';
  return [{ type: 'skipped', reason: `update ${kind}` }];
}
