import { place, type IncomingMessage, type IncomingPlace } from '#shared/domain/channels/types.ts';
import type { ChannelEvent, MediaRef, ProviderJson } from '../channel.ts';

// Instagram's messaging webhook (`{object: "instagram", entry: [{id: <IG account id>, messaging: [...]}]}`) → events,
// as Chatwoot reads it (docs/channels.md#instagram): messages with their attachments (shares, reels, posts, story
// mentions) and story replies, echoes, unsends (`is_deleted`), read receipts (the message named and every earlier
// one we sent, as Chatwoot marks them). Every item is read by its own kind
// (Chatwoot reuses the first item's kind for the whole batch).

type Json = Record<string, ProviderJson>;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined);

/** Attachment types that are a file to download, and the kind they are stored as. */
const MEDIA: Record<string, string> = {
  image: 'image',
  video: 'video',
  audio: 'audio',
  file: 'file',
  ig_reel: 'video',
  reel: 'video',
  story_mention: 'image',
};

function attachmentsOf(list: unknown): { media: MediaRef[]; places: IncomingPlace[]; content?: string } {
  const media: MediaRef[] = [];
  const places: IncomingPlace[] = [];
  let content: string | undefined;
  for (const a of Array.isArray(list) ? (list as Json[]) : []) {
    const type = str(a?.type) ?? '';
    const url = str(a?.payload?.url);
    if (MEDIA[type] && url) media.push({ url, kind: MEDIA[type] });
    else if (type === 'share' || type === 'ig_post' || type === 'ig_story') {
      places.push(place({ file_type: 'fallback', fallback_title: str(a.payload?.title) ?? '', external_url: url ?? null }));
      // Chatwoot's words for a shared post or story.
      if (type === 'ig_post') content ??= 'Shared post';
      if (type === 'ig_story') content ??= 'Shared story';
    }
  }
  return { media, places, content };
}

function messageEvent(m: Json, viaPage: boolean): ChannelEvent {
  const msg = m.message;
  const mid = str(msg?.mid);
  if (!mid) return { type: 'skipped', reason: 'message without mid' };
  const echo = msg.is_echo === true;
  const igsid = str(echo ? m.recipient?.id : m.sender?.id);
  if (!igsid) return { type: 'skipped', reason: 'message without contact' };
  if (msg.is_deleted === true) return { type: 'deleted', deleted: { claimKey: mid, contactSourceId: igsid } };
  const { media, places, content } = attachmentsOf(msg.attachments);
  const attrs: Record<string, unknown> = {};
  if (str(msg.reply_to?.mid)) attrs.in_reply_to_external_id = str(msg.reply_to.mid);
  // A reply to the business's story: the story it answers.
  const story = msg.reply_to?.story;
  if (story && typeof story === 'object') {
    attrs.story_id = str(story.id) ?? null;
    attrs.story_url = str(story.url) ?? null;
    attrs.story_sender = str(m.recipient?.id) ?? null;
  }
  if (msg.is_unsupported === true) attrs.is_unsupported = true;
  const text = str(msg.text) ?? content ?? null;
  if (text === null && !media.length && !places.length && !attrs.is_unsupported)
    return { type: 'skipped', reason: 'message without content' };
  const message: IncomingMessage = {
    providerId: mid,
    contact: { sourceId: igsid },
    content: text,
    ...(Object.keys(attrs).length ? { contentAttributes: attrs } : {}),
    ...(places.length ? { places } : {}),
    // The page inbox tells its Instagram conversations from its Messenger ones by this.
    ...(viaPage ? { conversationAttributes: { type: 'instagram_direct_message' } } : {}),
    ...(echo ? { echo: true } : {}),
  };
  return { type: 'message', message, media };
}

/** The Instagram accounts a payload is about (its entries'). */
export function accountsOf(body: string): string[] {
  const payload = JSON.parse(body) as Json;
  const entries: Json[] = Array.isArray(payload?.entry) ? payload.entry : [];
  return [...new Set(entries.map((e) => str(e?.id)).filter((id): id is string => !!id))];
}

/** `viaPage`: the inbox is the page the account is linked to (not an Instagram-login inbox). */
export function parseInstagram(body: string, instagramId: string | null | undefined, viaPage = true): ChannelEvent[] {
  const payload = JSON.parse(body) as Json;
  if (String(payload?.object ?? '').toLowerCase() !== 'instagram') return [{ type: 'skipped', reason: `object ${str(payload?.object)}` }];
  const out: ChannelEvent[] = [];
  for (const entry of Array.isArray(payload.entry) ? (payload.entry as Json[]) : []) {
    if (str(entry?.id) !== instagramId) continue;
    const items = [
      ...(Array.isArray(entry.messaging) ? entry.messaging : []),
      ...(Array.isArray(entry.standby) ? entry.standby : []),
    ] as Json[];
    for (const m of items) {
      if (m?.message) out.push(messageEvent(m, viaPage));
      else if (m?.read && str(m.read.mid))
        out.push({ type: 'status', status: { providerId: str(m.read.mid)!, status: 'read', through: true } });
      else
        out.push({
          type: 'skipped',
          reason: `messaging ${Object.keys(m ?? {}).find((k) => !['sender', 'recipient', 'timestamp'].includes(k)) ?? 'empty'}`,
        });
    }
  }
  return out;
}
