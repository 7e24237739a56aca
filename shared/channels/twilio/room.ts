import { config } from '#shared/config.ts';
import { findChannelInbox } from '#shared/db/repositories/channels.ts';
import type { OutgoingContext } from '#shared/domain/channels/send.ts';
import { ServiceError } from '#shared/errors.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import { fileScope, fileUrl } from '#shared/storage/file-urls.ts';
import type { ChannelRoom, MediaRef, SendOutcome, WebhookRequest } from '../channel.ts';
import { basicAuth, callProvider, downloadMedia, type ProviderAnswer } from '../http.ts';
import { plainText, whatsappMarkup } from '../markup.ts';
import { twilioSignatureValid } from '../signatures.ts';
import { parseTwilio } from './parse.ts';

// Twilio SMS and Twilio WhatsApp (`Channel::TwilioSms`, docs/channels.md#twilio): `/twilio/callback` and
// `/twilio/delivery_status` (form-encoded, X-Twilio-Signature), the Messages API for sends.

const base = () => config().twilioBaseUrl;
const form = (body: Buffer) => new URLSearchParams(body.toString('utf8'));

/** Basic auth as Chatwoot's client makes it: the API key and its secret (kept as the auth token), else the account. */
const auth = (inbox: InboxRecord) => basicAuth(inbox.api_key_sid || inbox.account_sid || '', inbox.auth_token ?? '');
/** Webhook setup always authenticates as the account (Chatwoot's WebhookSetupService). */
const accountAuth = (inbox: InboxRecord) => basicAuth(inbox.account_sid ?? '', inbox.auth_token ?? '');

const messagesUrl = (inbox: InboxRecord) => `${base()}/2010-04-01/Accounts/${encodeURIComponent(inbox.account_sid ?? '')}/Messages.json`;

/**
 * The inbox a webhook names: its messaging service, else our number (`To` of an incoming message, `From` of a
 * status), which must belong to the account the webhook names.
 */
async function inboxOf(req: WebhookRequest): Promise<InboxRecord | undefined> {
  const f = form(req.body);
  const service = f.get('MessagingServiceSid');
  const ours = req.path.endsWith('/delivery_status') ? f.get('From') : f.get('To');
  const key = service || ours;
  if (!key || key.length > 64) return undefined;
  const inbox = await findChannelInbox('TWILIO', key);
  if (!inbox || (!service && inbox.account_sid !== f.get('AccountSid'))) return undefined;
  return inbox;
}

function verify(req: WebhookRequest, inbox: InboxRecord): boolean {
  const query = new URLSearchParams(req.query).toString();
  const url = `${config().frontendUrl}${req.path}${query ? `?${query}` : ''}`;
  return twilioSignatureValid(url, [...form(req.body)], req.headers['x-twilio-signature'], inbox.auth_token ?? '');
}

/** Media on Twilio's servers: with the account's credentials, else (Chatwoot's fallback) without any. */
async function fetchMedia(inbox: InboxRecord, ref: MediaRef) {
  if (!ref.url) return undefined;
  return (
    (await downloadMedia(ref.url, { headers: { authorization: auth(inbox) }, contentType: ref.mime })) ??
    (await downloadMedia(ref.url, { contentType: ref.mime }))
  );
}

/** Twilio's error text (its JSON's `message`), as Chatwoot records the client's exception. */
const errorText = (a: Extract<ProviderAnswer, { retry: false }>) =>
  (typeof a.json?.message === 'string' && a.json.message) || a.text.slice(0, 500) || `HTTP ${a.status}`;

function invalid(message: string) {
  return new ServiceError('invalid', message, [{ field: '', message, code: 'invalid' }], undefined, { error: message });
}

/**
 * Chatwoot's check on create: one message listed with the credentials (a refusal is 422 with Twilio's text); for
 * SMS, our callback set on the messaging service or the number (the WhatsApp medium is configured in Twilio by hand).
 */
async function connect(inbox: InboxRecord): Promise<Partial<InboxRecord>> {
  const listed = await callProvider({ method: 'GET', url: `${messagesUrl(inbox)}?PageSize=1`, headers: { authorization: auth(inbox) } });
  if (!listed.ok) throw invalid(listed.retry ? listed.error : errorText(listed));
  if (inbox.medium !== 'sms') return {};
  const callback = `${config().frontendUrl}/twilio/callback`;
  const formHeaders = { authorization: accountAuth(inbox), 'content-type': 'application/x-www-form-urlencoded' };
  if (inbox.messaging_service_sid) {
    const set = await callProvider({
      method: 'POST',
      url: `${base()}/v1/Services/${encodeURIComponent(inbox.messaging_service_sid)}`,
      headers: formHeaders,
      body: new URLSearchParams({ InboundRequestUrl: callback, InboundMethod: 'POST', UseInboundWebhookOnNumber: 'false' }).toString(),
    });
    if (!set.ok) throw invalid(set.retry ? set.error : errorText(set));
    return {};
  }
  const account = `${base()}/2010-04-01/Accounts/${encodeURIComponent(inbox.account_sid ?? '')}`;
  const found = await callProvider({
    method: 'GET',
    url: `${account}/IncomingPhoneNumbers.json?PhoneNumber=${encodeURIComponent(inbox.phone_number ?? '')}`,
    headers: { authorization: accountAuth(inbox) },
  });
  const number = found.ok ? found.json?.incoming_phone_numbers?.[0]?.sid : undefined;
  // Chatwoot only logs a number Twilio does not list.
  if (typeof number !== 'string') return {};
  const set = await callProvider({
    method: 'POST',
    url: `${account}/IncomingPhoneNumbers/${encodeURIComponent(number)}.json`,
    headers: formHeaders,
    body: new URLSearchParams({ SmsUrl: callback, SmsMethod: 'POST' }).toString(),
  });
  if (!set.ok) throw invalid(set.retry ? set.error : errorText(set));
  return {};
}

interface ContentTemplate {
  content_sid?: string;
  friendly_name?: string;
  language?: string;
  status?: string;
}

async function send(ctx: OutgoingContext): Promise<SendOutcome> {
  const { inbox, message } = ctx;
  const f = new URLSearchParams();
  if (inbox.messaging_service_sid) f.set('MessagingServiceSid', inbox.messaging_service_sid);
  else f.set('From', inbox.phone_number ?? '');
  f.set('To', ctx.recipient);
  const params = message.additional_attributes.template_params as
    | { name?: string; language?: string; processed_params?: unknown }
    | undefined;
  if (params?.name) {
    const templates = ((inbox.content_templates?.templates as ContentTemplate[] | undefined) ?? []).filter(
      (t) => t.friendly_name === params.name && t.language === (params.language ?? 'en') && (t.status ?? 'approved') === 'approved',
    );
    if (!templates[0]?.content_sid) return { refused: 'Template not found' };
    f.set('ContentSid', templates[0].content_sid);
    const values = params.processed_params && typeof params.processed_params === 'object' ? params.processed_params : {};
    f.set('ContentVariables', JSON.stringify(values));
  } else {
    f.set('Body', inbox.medium === 'whatsapp' ? whatsappMarkup(message.content) : plainText(message.content));
  }
  for (const a of message.attachments) {
    if (a.file_type === 'location' || a.file_type === 'contact') continue;
    f.append('MediaUrl', fileUrl(a.data_url, fileScope.attachment(a.account_id), a.filename));
  }
  f.set('StatusCallback', `${config().frontendUrl}/twilio/delivery_status`);
  const answer = await callProvider({
    method: 'POST',
    url: messagesUrl(inbox),
    headers: { authorization: auth(inbox), 'content-type': 'application/x-www-form-urlencoded' },
    body: f.toString(),
  });
  if (answer.ok)
    return typeof answer.json?.sid === 'string' ? { sourceId: answer.json.sid } : { refused: 'Twilio answered without a message sid' };
  return answer.retry ? { retry: answer.error } : { refused: errorText(answer) };
}

export const twilioRoom: ChannelRoom = {
  kind: 'twilio',
  channelTypes: ['Channel::TwilioSms'],
  ingest: {
    inbox: inboxOf,
    verify,
    parse: (body) => parseTwilio(body),
    accepted: { status: 204 },
  },
  // The provider check runs when the inbox is made (an update keeps what was checked).
  setup: async (inbox, before) => (before ? inbox : { ...inbox, ...(await connect(inbox)) }),
  fetchMedia,
  send,
};
