import { config, providerConfig } from '#shared/config.ts';
import type { OutgoingContext } from '#shared/domain/channels/send.ts';
import { ServiceError } from '#shared/errors.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import { fileScope, fileUrl } from '#shared/storage/file-urls.ts';
import type { ChannelRoom, MediaRef, SendOutcome } from '../channel.ts';
import { basicAuth, callProvider, downloadMedia, type ProviderAnswer } from '../http.ts';
import { plainText, whatsappMarkup } from '../markup.ts';
import { twilioWebhook } from './webhook.ts';
import { contentTemplateOf, contentVariables, findContentTemplate, type ContentTemplate, type TwilioTemplateParams } from './templates.ts';

// Twilio SMS and Twilio WhatsApp (`Channel::TwilioSms`, docs/channels.md#twilio): `/twilio/callback` and
// `/twilio/delivery_status` (form-encoded, X-Twilio-Signature), the Messages API for sends.

const base = () => providerConfig().twilioBaseUrl;
const contentBase = () => providerConfig().twilioContentBaseUrl;

/** Basic auth as Chatwoot's client makes it: the API key and its secret (kept as the auth token), else the account. */
const auth = (inbox: InboxRecord) => basicAuth(inbox.api_key_sid || inbox.account_sid || '', inbox.auth_token ?? '');
/** Webhook setup always authenticates as the account (Chatwoot's WebhookSetupService). */
const accountAuth = (inbox: InboxRecord) => basicAuth(inbox.account_sid ?? '', inbox.auth_token ?? '');

const messagesUrl = (inbox: InboxRecord) => `${base()}/2010-04-01/Accounts/${encodeURIComponent(inbox.account_sid ?? '')}/Messages.json`;

/** Media on Twilio's servers: with the account's credentials, else (Chatwoot's fallback) without any. */
/** A download refused at once (not one that waited out its time) is tried again without credentials. */
const QUICK_REFUSAL_MS = 5_000;

async function fetchMedia(inbox: InboxRecord, ref: MediaRef) {
  if (!ref.url) return undefined;
  const started = Date.now();
  const file = await downloadMedia(ref.url, { headers: { authorization: auth(inbox) }, contentType: ref.mime });
  // Media of accounts without HTTP auth on their files is public (Chatwoot downloads it so): a second try only after
  // a quick refusal, so a host that never answers costs one download's time, not two (the consumer's whole timeout).
  if (file || Date.now() - started > QUICK_REFUSAL_MS) return file;
  return downloadMedia(ref.url, { contentType: ref.mime });
}

/** Twilio's error text (its JSON's `message`), as Chatwoot records the client's exception. */
const errorText = (a: Extract<ProviderAnswer, { retry: false }>) =>
  (typeof a.json?.message === 'string' && a.json.message) || a.text.slice(0, 500) || `HTTP ${a.status}`;

function invalid(message: string) {
  return new ServiceError('invalid', message, [{ field: '', message, code: 'invalid' }], undefined, { error: message });
}

/**
 * Chatwoot's check on create: one message listed with the credentials (a refusal is 422 with Twilio's text); for
 * SMS, our callback set on the messaging service or the number (the WhatsApp medium is configured in Twilio by hand;
 * its content templates are synced instead).
 */
async function connect(inbox: InboxRecord): Promise<Partial<InboxRecord>> {
  const listed = await callProvider({ method: 'GET', url: `${messagesUrl(inbox)}?PageSize=1`, headers: { authorization: auth(inbox) } });
  if (!listed.ok) throw invalid(listed.retry ? listed.error : errorText(listed));
  // A WhatsApp medium's content templates, fetched at once (kept empty when Twilio does not give them).
  if (inbox.medium !== 'sms') return { content_templates: { templates: (await contentTemplates(inbox)) ?? [] } };
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

/** Chatwoot lists at most this many content templates. */
const MAX_TEMPLATES = 1000;

/**
 * The account's Content API templates in Chatwoot's shape, every page (`meta.next_page_url`, asked of the configured
 * host only); undefined when Twilio refuses or does not answer (Chatwoot then keeps what the inbox had).
 */
async function contentTemplates(inbox: InboxRecord): Promise<ContentTemplate[] | undefined> {
  const out: ContentTemplate[] = [];
  let url: string | undefined = `${contentBase()}/v1/Content?PageSize=${MAX_TEMPLATES}`;
  for (let page = 0; url && out.length < MAX_TEMPLATES && page < 50; page++) {
    const answer = await callProvider({ method: 'GET', url, headers: { authorization: auth(inbox) } });
    if (!answer.ok) return undefined;
    if (Array.isArray(answer.json?.contents)) out.push(...answer.json.contents.map(contentTemplateOf));
    const next = answer.json?.meta?.next_page_url;
    const at = typeof next === 'string' && next ? new URL(next, contentBase()) : undefined;
    url = at ? `${contentBase()}${at.pathname}${at.search}` : undefined;
  }
  return out.slice(0, MAX_TEMPLATES);
}

/** `POST /inboxes/{id}/sync_templates`: a WhatsApp medium's content templates (an SMS inbox has none: 422). */
async function syncTemplates(inbox: InboxRecord): Promise<Partial<InboxRecord> | undefined> {
  if (inbox.medium !== 'whatsapp') return undefined;
  const templates = await contentTemplates(inbox);
  return templates ? { content_templates: { templates } } : {};
}

async function send(ctx: OutgoingContext): Promise<SendOutcome> {
  const { inbox, message } = ctx;
  const f = new URLSearchParams();
  if (inbox.messaging_service_sid) f.set('MessagingServiceSid', inbox.messaging_service_sid);
  else f.set('From', inbox.phone_number ?? '');
  f.set('To', ctx.recipient);
  const params = message.additional_attributes.template_params as TwilioTemplateParams | undefined;
  if (params && typeof params === 'object' && Object.keys(params).length) {
    // A template goes out as its content and variables only (Chatwoot's send_template_message).
    const template = findContentTemplate(inbox.content_templates?.templates, params);
    if (!template?.content_sid) return { refused: 'Template not found' };
    f.set('ContentSid', template.content_sid);
    const variables = contentVariables(template, params);
    if (Object.keys(variables).length) f.set('ContentVariables', JSON.stringify(variables));
  } else {
    f.set('Body', inbox.medium === 'whatsapp' ? whatsappMarkup(message.content) : plainText(message.content));
    for (const a of message.attachments) {
      if (a.file_type === 'location' || a.file_type === 'contact') continue;
      f.append('MediaUrl', fileUrl(a.data_url, fileScope.attachment(a.account_id), a.filename));
    }
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
  ...twilioWebhook,
  channelTypes: ['Channel::TwilioSms'],
  // The provider check runs when the inbox is made (an update keeps what was checked).
  setup: async (inbox, before) => (before ? inbox : { ...inbox, ...(await connect(inbox)) }),
  syncTemplates,
  fetchMedia,
  send,
};
