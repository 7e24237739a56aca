import { place, type IncomingMessage, type ProviderStatus } from '#shared/domain/channels/types.ts';
import type { ChannelEvent, MediaRef } from '../channel.ts';
import { alternateWaId } from '../numbers.ts';

// Twilio's form-encoded webhooks (docs/channels.md#twilio): an incoming SMS or WhatsApp message on
// `/twilio/callback`, a status of a message we sent on `/twilio/delivery_status`, read as Chatwoot reads them.

/** Chatwoot's statuses; Twilio's others (queued, sending, accepted, …) change nothing. */
const STATUSES: Record<string, ProviderStatus['status']> = {
  sent: 'sent',
  delivered: 'delivered',
  read: 'read',
  failed: 'failed',
  undelivered: 'failed',
};

/** A `whatsapp:+…` address in its Brazil/Argentina other form. */
function alternate(address: string): string | undefined {
  const m = /^whatsapp:\+(\d+)$/.exec(address);
  const other = m ? alternateWaId(m[1]) : undefined;
  return other ? `whatsapp:+${other}` : undefined;
}

export function parseTwilio(body: string): ChannelEvent[] {
  const f = new URLSearchParams(body);
  const get = (k: string) => f.get(k) ?? undefined;
  const sid = get('SmsSid') ?? get('MessageSid');
  const text = get('Body');
  const location = get('MessageType') === 'location' && get('Latitude') && get('Longitude');
  if (text === undefined && !get('MediaUrl0') && !location) {
    // A status callback.
    const status = STATUSES[get('MessageStatus') ?? get('SmsStatus') ?? ''];
    if (!sid || !status) return [{ type: 'skipped', reason: `status ${get('MessageStatus') ?? 'none'}` }];
    const code = get('ErrorCode');
    const error =
      status === 'failed' && code ? (get('ErrorMessage') ? `${code} - ${get('ErrorMessage')}` : `Error code: ${code}`) : undefined;
    return [{ type: 'status', status: { providerId: sid, status, ...(error ? { error } : {}) } }];
  }
  const from = get('From');
  if (!sid || !from) return [{ type: 'skipped', reason: 'message without sid or sender' }];
  const whatsapp = from.startsWith('whatsapp:');
  const number = from.replace(/^whatsapp:/, '');
  const alias = alternate(from);
  const sms = whatsapp ? {} : { from_zip_code: get('FromZip'), from_country: get('FromCountry'), from_state: get('FromState') };
  const media: MediaRef[] = [];
  for (let i = 0; i < Math.min(10, Number(get('NumMedia') ?? 0) || 10); i++) {
    const url = get(`MediaUrl${i}`);
    if (url) media.push({ url, mime: get(`MediaContentType${i}`) });
  }
  const message: IncomingMessage = {
    providerId: sid,
    contact: {
      sourceId: from,
      ...(alias ? { aliases: [alias] } : {}),
      name: get('ProfileName'),
      nameNumber: number,
      phone_number: /^\+\d+$/.test(number) ? number : null,
      ...(whatsapp ? {} : { additional_attributes: sms }),
    },
    // Chatwoot strips NUL bytes from the text.
    content: text === undefined ? null : text.replace(/\0/g, ''),
    ...(location
      ? {
          places: [
            place({
              file_type: 'location',
              coordinates_lat: Number(get('Latitude')),
              coordinates_long: Number(get('Longitude')),
              fallback_title: '',
            }),
          ],
        }
      : {}),
    ...(whatsapp ? {} : { conversationAttributes: sms }),
  };
  return [{ type: 'message', message, media }];
}
