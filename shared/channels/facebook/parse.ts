import { place, type IncomingMessage, type IncomingPlace } from '#shared/domain/channels/types.ts';
import type { ChannelEvent, MediaRef, ProviderJson } from '../channel.ts';

// Messenger's webhook (`{object: "page", entry: [{id: <page id>, messaging: [...]}]}`) → events, as Chatwoot reads
// it (docs/channels.md#facebook-messenger): messages (with their attachments) and echoes, delivery and read
// watermarks. Only the inbox's page's entries are read (a payload may hold several pages'); `standby` is not.

type Json = Record<string, ProviderJson>;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined);

const MEDIA = new Set(['image', 'audio', 'video', 'file']);

function attachmentsOf(list: unknown): { media: MediaRef[]; places: IncomingPlace[] } {
  const media: MediaRef[] = [];
  const places: IncomingPlace[] = [];
  for (const a of Array.isArray(list) ? (list as Json[]) : []) {
    const type = str(a?.type);
    const p = a?.payload ?? {};
    if (type && MEDIA.has(type) && str(p.url)) media.push({ url: str(p.url), kind: type });
    else if (type === 'location') {
      places.push(
        place({
          file_type: 'location',
          coordinates_lat: Number(p.coordinates?.lat),
          coordinates_long: Number(p.coordinates?.long),
          fallback_title: str(a.title) ?? '',
          external_url: str(a.url) ?? null,
        }),
      );
    } else if (type === 'fallback' || type === 'share') {
      // A shared link: its title and address.
      places.push(
        place({
          file_type: 'fallback',
          fallback_title: str(a.title) ?? str(p.title) ?? '',
          external_url: str(a.url) ?? str(p.url) ?? null,
        }),
      );
    }
    // template, unsupported_type, ephemeral: not stored (Chatwoot).
  }
  return { media, places };
}

function messageEvent(m: Json, appId: string | undefined): ChannelEvent {
  const msg = m.message;
  const mid = str(msg?.mid);
  if (!mid) return { type: 'skipped', reason: 'message without mid' };
  const echo = msg.is_echo === true;
  // An echo's contact is its recipient; the page is the sender.
  const psid = str(echo ? m.recipient?.id : m.sender?.id);
  if (!psid) return { type: 'skipped', reason: 'message without contact' };
  // The service's own sends come back as echoes naming its app: they are stored already.
  if (echo && appId && str(msg.app_id) === appId) return { type: 'skipped', reason: 'echo of our own send' };
  const { media, places } = attachmentsOf(msg.attachments);
  const text = str(msg.text) ?? null;
  if (text === null && !media.length && !places.length) return { type: 'skipped', reason: 'message without content' };
  const replyTo = str(msg.reply_to?.mid);
  const message: IncomingMessage = {
    providerId: mid,
    contact: { sourceId: psid },
    content: text,
    ...(replyTo ? { contentAttributes: { in_reply_to_external_id: replyTo } } : {}),
    ...(places.length ? { places } : {}),
    ...(echo ? { echo: true } : {}),
  };
  return { type: 'message', message, media };
}

function watermarkEvent(m: Json, status: 'delivered' | 'read'): ChannelEvent {
  const psid = str(m.sender?.id);
  const at = Number((status === 'delivered' ? m.delivery : m.read)?.watermark);
  if (!psid || !Number.isFinite(at) || at <= 0) return { type: 'skipped', reason: `${status} without watermark` };
  // Meta's watermark is in milliseconds.
  return { type: 'watermark', watermark: { contactSourceId: psid, status, at: Math.floor(at / 1000) } };
}

/** The page ids a payload is about (its entries'). */
export function pagesOf(body: string): string[] {
  const payload = JSON.parse(body) as Json;
  const entries: Json[] = Array.isArray(payload?.entry) ? payload.entry : [];
  return [...new Set(entries.map((e) => str(e?.id)).filter((id): id is string => !!id))];
}

export function parseMessenger(body: string, pageId: string | null | undefined, appId?: string): ChannelEvent[] {
  const payload = JSON.parse(body) as Json;
  const out: ChannelEvent[] = [];
  for (const entry of Array.isArray(payload?.entry) ? (payload.entry as Json[]) : []) {
    if (str(entry?.id) !== pageId) continue;
    for (const m of Array.isArray(entry.messaging) ? (entry.messaging as Json[]) : []) {
      if (m?.message) out.push(messageEvent(m, appId));
      else if (m?.delivery) out.push(watermarkEvent(m, 'delivered'));
      else if (m?.read) out.push(watermarkEvent(m, 'read'));
      else
        out.push({
          type: 'skipped',
          reason: `messaging ${Object.keys(m ?? {}).find((k) => !['sender', 'recipient', 'timestamp'].includes(k)) ?? 'empty'}`,
        });
    }
  }
  return out;
}
