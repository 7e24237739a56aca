import { place } from '#shared/domain/channels/types.ts';
import type { ChannelEvent, ProviderJson } from '../channel.ts';

// LINE's webhook (Messaging API: `{destination, events: [...]}`) → events, as Chatwoot reads it
// (docs/channels.md#line): `message` events from a user; the contact is `source.userId`, its name comes from the
// profile (the room's `profile`). Every event of the payload is read. An empty `events` (the console's "Verify")
// is nothing.

type Json = Record<string, ProviderJson>;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined);

/** Files LINE keeps for the data API. */
const MEDIA: Record<string, string> = { image: 'image', video: 'video', audio: 'audio', file: 'file' };

/** Chatwoot's sticker: a Markdown image of LINE's sticker shop picture. */
export const stickerContent = (stickerId: string) =>
  `![sticker-${stickerId}](https://stickershop.line-scdn.net/stickershop/v1/sticker/${stickerId}/android/sticker.png)`;

function messageEvent(e: Json): ChannelEvent {
  const m = e.message ?? {};
  const id = str(m.id);
  const userId = str(e.source?.userId);
  if (!id || !userId) return { type: 'skipped', reason: 'message without id or user' };
  const type = str(m.type) ?? 'unknown';
  const base = {
    providerId: id,
    // A redelivery (`deliveryContext.isRedelivery`) carries the same webhookEventId.
    claimKey: str(e.webhookEventId) ?? id,
    contact: { sourceId: userId, additional_attributes: { social_line_user_id: userId } },
  };
  if (type === 'text') return { type: 'message', message: { ...base, content: str(m.text) ?? null }, media: [] };
  if (type === 'sticker' && str(m.stickerId))
    return { type: 'message', message: { ...base, content: stickerContent(str(m.stickerId)!), contentType: 'sticker' }, media: [] };
  if (MEDIA[type]) {
    return { type: 'message', message: { ...base, content: null }, media: [{ id, kind: MEDIA[type], filename: str(m.fileName) }] };
  }
  if (type === 'location') {
    // Chatwoot stores an empty message; here the place it names.
    const title = [str(m.title), str(m.address)].filter(Boolean).join(', ');
    const at = place({
      file_type: 'location',
      coordinates_lat: Number(m.latitude),
      coordinates_long: Number(m.longitude),
      fallback_title: title,
    });
    return { type: 'message', message: { ...base, content: null, places: [at] }, media: [] };
  }
  return { type: 'skipped', reason: `message type ${type}` };
}

export function parseLine(body: string): ChannelEvent[] {
  const payload = JSON.parse(body) as Json;
  const events: Json[] = Array.isArray(payload?.events) ? payload.events : [];
  return events.map((e) => (e?.type === 'message' ? messageEvent(e) : { type: 'skipped', reason: `event ${str(e?.type) ?? 'unknown'}` }));
}
