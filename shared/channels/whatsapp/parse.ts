import { place, type IncomingMessage, type IncomingPlace, type ProviderStatus } from '#shared/domain/channels/types.ts';
import type { ChannelEvent, MediaRef, ProviderJson } from '../channel.ts';
import { alternateWaId } from '../numbers.ts';

// WhatsApp webhook payloads (Meta's Cloud API: `{object, entry[].changes[].value}`; 360dialog's on-premise API: the
// bare `{contacts, messages}` / `{statuses}`) → events, as Chatwoot reads them (docs/channels.md#whatsapp). Every
// entry, change, message and status is read (Chatwoot reads only the first of each).

type Json = Record<string, ProviderJson>;

/** Types Chatwoot does not store. */
const SKIPPED = new Set(['reaction', 'ephemeral', 'unsupported', 'request_welcome']);
/** Types whose payload object is a file. */
const MEDIA = new Set(['image', 'sticker', 'audio', 'voice', 'video', 'document']);
const STATUSES = new Set(['sent', 'delivered', 'read', 'failed']);

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined);

/** The payload's values: each change's value (Cloud), or the payload itself (360dialog). */
export function valuesOf(payload: Json): Json[] {
  if (payload?.object === 'whatsapp_business_account' || Array.isArray(payload?.entry)) {
    return (payload.entry ?? []).flatMap((e: Json) =>
      (e?.changes ?? []).map((c: Json) => c?.value).filter((v: unknown) => v && typeof v === 'object'),
    );
  }
  return payload && typeof payload === 'object' ? [payload] : [];
}

function statusOf(s: Json): ChannelEvent {
  const id = str(s?.id);
  const value = str(s?.status);
  if (!id || !value || !STATUSES.has(value)) return { type: 'skipped', reason: `status ${value ?? 'unknown'}` };
  const error = Array.isArray(s.errors) && s.errors[0] ? `${s.errors[0].code}: ${s.errors[0].title}` : undefined;
  const status: ProviderStatus = {
    providerId: id,
    status: value as ProviderStatus['status'],
    ...(value === 'failed' && error ? { error } : {}),
  };
  return { type: 'status', status };
}

/** Text a message shows (Chatwoot's message_content). */
function contentOf(m: Json): string | null {
  switch (m.type) {
    case 'text':
      return str(m.text?.body) ?? null;
    case 'button':
      return str(m.button?.text) ?? null;
    case 'interactive':
      return str(m.interactive?.button_reply?.title) ?? str(m.interactive?.list_reply?.title) ?? null;
    default:
      return MEDIA.has(m.type) || !['location', 'contacts'].includes(m.type) ? (str(m[m.type]?.caption) ?? null) : null;
  }
}

function messagesOf(value: Json, m: Json): ChannelEvent[] {
  const id = str(m?.id);
  const type = str(m?.type) ?? 'unknown';
  if (!id) return [{ type: 'skipped', reason: 'message without id' }];
  if (SKIPPED.has(type)) return [{ type: 'skipped', reason: type }];
  if (m.errors) return [{ type: 'skipped', reason: `message with errors: ${JSON.stringify(m.errors).slice(0, 200)}` }];
  const contacts: Json[] = Array.isArray(value.contacts) ? value.contacts : [];
  const who = contacts.find((c) => str(c?.wa_id) === str(m.from)) ?? contacts[0];
  const waId = str(who?.wa_id);
  // Chatwoot drops a message whose payload names no contact.
  if (!waId) return [{ type: 'skipped', reason: 'message without contact' }];
  const alias = alternateWaId(waId);
  const from = str(m.from) ?? waId;
  const base: Omit<IncomingMessage, 'content'> = {
    providerId: id,
    contact: {
      sourceId: waId,
      ...(alias ? { aliases: [alias] } : {}),
      // The profile's name, else the number (rather than Chatwoot's random name: agents can tell who wrote), which the
      // consumer formats (IncomingContact.nameNumber).
      name: str(who?.profile?.name),
      nameNumber: `+${from}`,
      phone_number: `+${from}`,
    },
    ...(str(m.context?.id) ? { contentAttributes: { in_reply_to_external_id: str(m.context.id) } } : {}),
  };
  if (type === 'contacts') {
    // One message per shared contact, a contact card per phone.
    return (Array.isArray(m.contacts) ? m.contacts : []).map((c: Json, i: number) => {
      const phones: Json[] = Array.isArray(c?.phones) && c.phones.length ? c.phones : [{ phone: 'Phone number is not available' }];
      const meta = Object.fromEntries(
        Object.entries({ firstName: str(c?.name?.first_name), lastName: str(c?.name?.last_name) }).filter(([, v]) => v !== undefined),
      );
      const places: IncomingPlace[] = phones.map((p) => place({ file_type: 'contact', fallback_title: String(p?.phone ?? ''), meta }));
      return {
        type: 'message',
        message: { ...base, claimKey: i ? `${id}:${i}` : id, content: str(c?.name?.formatted_name) ?? null, places },
        media: [],
      } satisfies ChannelEvent;
    });
  }
  const places: IncomingPlace[] = [];
  const media: MediaRef[] = [];
  if (type === 'location') {
    const l = m.location ?? {};
    places.push(
      place({
        file_type: 'location',
        coordinates_lat: Number(l.latitude),
        coordinates_long: Number(l.longitude),
        fallback_title: l.name ? `${l.name}, ${l.address ?? ''}` : '',
        external_url: str(l.url) ?? null,
      }),
    );
  } else if (!['text', 'button', 'interactive'].includes(type) && m[type] && typeof m[type] === 'object') {
    const f = m[type];
    media.push({ id: str(f.id), url: str(f.url) ?? str(f.link), mime: str(f.mime_type), filename: str(f.filename), kind: type });
  }
  return [{ type: 'message', message: { ...base, content: contentOf(m), ...(places.length ? { places } : {}) }, media }];
}

/**
 * The payload's events. `phoneNumberId`: the inbox's Cloud number; a change about another number (a callback URL
 * shared by several) is not this inbox's and is skipped.
 */
export function parseWhatsapp(body: string, phoneNumberId?: string): ChannelEvent[] {
  const payload = JSON.parse(body) as Json;
  const out: ChannelEvent[] = [];
  for (const value of valuesOf(payload)) {
    const about = str(value.metadata?.phone_number_id);
    if (phoneNumberId && about && about !== phoneNumberId) {
      out.push({ type: 'skipped', reason: `change for phone number id ${about}` });
      continue;
    }
    for (const s of Array.isArray(value.statuses) ? value.statuses : []) out.push(statusOf(s));
    for (const m of Array.isArray(value.messages) ? value.messages : []) out.push(...messagesOf(value, m));
  }
  return out;
}
