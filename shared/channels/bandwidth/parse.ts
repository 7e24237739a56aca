import type { IncomingMessage } from '#shared/domain/channels/types.ts';
import type { ChannelEvent, MediaRef, ProviderJson } from '../channel.ts';

// Bandwidth's messaging callbacks (docs/channels.md#bandwidth): a JSON array of events. Every element is read
// (Chatwoot reads only the first); delivery receipts apply as Chatwoot intends (as written they never do).

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

function eventOf(e: ProviderJson): ChannelEvent {
  const type = str(e?.type) ?? 'unknown';
  const m = e?.message ?? {};
  const id = str(m.id);
  if (!id) return { type: 'skipped', reason: `${type} without a message id` };
  if (type === 'message-delivered') return { type: 'status', status: { providerId: id, status: 'delivered' } };
  if (type === 'message-failed') {
    const error = [e.errorCode, str(e.description)].filter((x) => x !== undefined && x !== null).join(' - ');
    return { type: 'status', status: { providerId: id, status: 'failed', ...(error ? { error } : {}) } };
  }
  if (type !== 'message-received') return { type: 'skipped', reason: type };
  const from = str(m.from);
  if (!from) return { type: 'skipped', reason: 'message without a sender' };
  // Bandwidth's own SMIL and XML parts of an MMS are no media of the customer's.
  const media: MediaRef[] = (Array.isArray(m.media) ? m.media : [])
    .filter((u: unknown): u is string => typeof u === 'string' && !/\.(smil|xml)$/i.test(u))
    .map((url: string) => ({ url }));
  const message: IncomingMessage = {
    providerId: id,
    contact: { sourceId: from, nameNumber: from, phone_number: /^\+\d+$/.test(from) ? from : null },
    content: typeof m.text === 'string' ? m.text : null,
  };
  return { type: 'message', message, media };
}

export function parseBandwidth(body: string): ChannelEvent[] {
  const payload = JSON.parse(body) as ProviderJson;
  return (Array.isArray(payload) ? payload : [payload]).map(eventOf);
}
