import { config, providerConfig } from '#shared/config.ts';
import { ServiceError } from '#shared/errors.ts';
import type { OutgoingContext } from '#shared/domain/channels/send.ts';
import { noteAuthorizationError } from '#shared/domain/channels/reauthorize.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import { fileScope, fileUrl } from '#shared/storage/file-urls.ts';
import { providerSetting, type ChannelRoom, type MediaRef, type SendOutcome } from '../channel.ts';
import { callProvider, downloadMedia, jsonHeaders, onOrigin, readProvider, type ProviderAnswer } from '../http.ts';
import { whatsappMarkup } from '../markup.ts';
import { sessionBody, templateBody, type StoredTemplate, type TemplateParams } from './bodies.ts';
import { providerOf, whatsappWebhook } from './webhook.ts';

// WhatsApp, through Meta's Cloud API (`whatsapp_cloud`) or 360dialog (`default`) (docs/channels.md#whatsapp).

/** Chatwoot's error when a message outside the 24-hour window has no template to send. */
export const NO_TEMPLATE = 'Template not found or invalid template name';

const setting = providerSetting;

const cloudBase = () => providerConfig().whatsappCloudBaseUrl;
const dialogBase = () => providerConfig().dialog360BaseUrl;

/** The request headers of the inbox's provider. */
export const providerHeaders = (inbox: InboxRecord): Record<string, string> =>
  providerOf(inbox) === 'whatsapp_cloud'
    ? { authorization: `Bearer ${setting(inbox, 'api_key')}` }
    : { 'D360-API-KEY': setting(inbox, 'api_key') };

async function fetchMedia(inbox: InboxRecord, ref: MediaRef) {
  // A link the payload names (no media id) gets the inbox's key only on the provider's own API host: a webhook may
  // be unsigned (360dialog; Cloud without FB_APP_SECRET), and its link may point anywhere.
  if (!ref.id && ref.url) {
    const own = onOrigin(ref.url, providerOf(inbox) === 'whatsapp_cloud' ? cloudBase() : dialogBase());
    return downloadMedia(ref.url, { headers: own ? providerHeaders(inbox) : {}, filename: ref.filename, contentType: ref.mime });
  }
  if (!ref.id) return undefined;
  if (providerOf(inbox) === 'default') {
    return downloadMedia(`${dialogBase()}/media/${encodeURIComponent(ref.id)}`, {
      headers: providerHeaders(inbox),
      filename: ref.filename,
      contentType: ref.mime,
    });
  }
  const phoneId = setting(inbox, 'phone_number_id');
  const meta = await readProvider({
    url: `${cloudBase()}/v13.0/${encodeURIComponent(ref.id)}${phoneId ? `?phone_number_id=${encodeURIComponent(phoneId)}` : ''}`,
    headers: providerHeaders(inbox),
  });
  // Meta refusing the token (expired, revoked) counts toward the inbox's reauthorization, as Chatwoot counts it.
  if (!meta.ok && !meta.retry) await noteTokenRefused(inbox, meta);
  if (!meta.ok || typeof meta.json?.url !== 'string') return undefined;
  // The URL Meta's own lookup answered (its media host) is Meta's: fetched with the token.
  return downloadMedia(meta.json.url, {
    headers: providerHeaders(inbox),
    filename: ref.filename,
    contentType: typeof meta.json.mime_type === 'string' ? meta.json.mime_type : ref.mime,
  });
}

/** The provider's words for a refusal: Graph's `error.message`, 360dialog's `meta.developer_message`. */
function refusalText(a: Extract<ProviderAnswer, { retry: false }>): string {
  const j = a.json;
  return (
    (typeof j?.error?.message === 'string' && j.error.message) ||
    (typeof j?.meta?.developer_message === 'string' && j.meta.developer_message) ||
    (Array.isArray(j?.errors) && typeof j.errors[0]?.title === 'string' && j.errors[0].title) ||
    a.text.slice(0, 500) ||
    `HTTP ${a.status}`
  );
}

async function send(ctx: OutgoingContext): Promise<SendOutcome> {
  const { inbox, message } = ctx;
  const provider = providerOf(inbox);
  const to = ctx.recipient;
  const params = message.additional_attributes.template_params as TemplateParams | undefined;
  let body: Record<string, unknown>;
  if (params?.name || !ctx.canReply) {
    // Outside the 24-hour window only a template may go out.
    if (!params?.name) return { refused: NO_TEMPLATE };
    const templates = (Array.isArray(inbox.message_templates) ? inbox.message_templates : []) as StoredTemplate[];
    body = templateBody(provider, to, params, templates);
  } else {
    const first = message.attachments.find((a) => a.file_type !== 'location' && a.file_type !== 'contact');
    body = sessionBody({
      provider,
      to,
      text: whatsappMarkup(message.content),
      message,
      attachment: first
        ? { record: first, link: fileUrl(first.data_url, fileScope.attachment(first.account_id), first.filename) }
        : undefined,
      replyTo: ctx.replyTo,
    });
  }
  const url =
    provider === 'whatsapp_cloud'
      ? `${cloudBase()}/v13.0/${encodeURIComponent(setting(inbox, 'phone_number_id'))}/messages`
      : `${dialogBase()}/messages`;
  const answer = await callProvider({
    method: 'POST',
    url,
    headers: { ...jsonHeaders, ...providerHeaders(inbox) },
    body: JSON.stringify(body),
  });
  if (answer.ok) {
    const id = answer.json?.messages?.[0]?.id;
    return typeof id === 'string' && !answer.json?.error
      ? { sourceId: id }
      : { refused: refusalText({ ...answer, ok: false, retry: false }) };
  }
  if (answer.retry) return { retry: answer.error };
  await noteTokenRefused(inbox, answer);
  return { refused: refusalText(answer) };
}

/**
 * Meta refusing the inbox's token: an OAuthException, code 190 (expired, revoked), or a 401. It counts toward the
 * inbox's reauthorization (two errors: `reauthorization_required`, Chatwoot's threshold). Chatwoot counts the media
 * lookup's 401 only; a send or a template sync refused so is counted here too, since every later one fails alike.
 */
async function noteTokenRefused(inbox: InboxRecord, answer: Extract<ProviderAnswer, { retry: false }>): Promise<void> {
  const error = answer.json?.error;
  if (answer.status === 401 || error?.code === 190 || error?.type === 'OAuthException') await noteAuthorizationError(inbox);
}

/** Chatwoot's 422 when the provider does not take the credentials. */
const invalidCredentials = () =>
  new ServiceError('invalid', 'Provider config Invalid Credentials', [
    { field: 'provider_config', message: 'Invalid Credentials', code: 'invalid' },
  ]);

/** Meta's templates of the business account, every page (`paging.next`); undefined when the first page is refused. */
async function cloudTemplates(
  inbox: InboxRecord,
  onRefused?: (a: Extract<ProviderAnswer, { retry: false }>) => Promise<void>,
): Promise<Record<string, unknown>[] | undefined> {
  const out: Record<string, unknown>[] = [];
  let url: string | undefined =
    `${cloudBase()}/v14.0/${encodeURIComponent(setting(inbox, 'business_account_id'))}/message_templates?access_token=${encodeURIComponent(setting(inbox, 'api_key'))}`;
  for (let page = 0; url && page < 50; page++) {
    const answer = await callProvider({ method: 'GET', url });
    if (!answer.ok && !answer.retry && page === 0) await onRefused?.(answer);
    if (!answer.ok) return page ? out : undefined;
    if (Array.isArray(answer.json?.data)) out.push(...answer.json.data);
    url = typeof answer.json?.paging?.next === 'string' ? answer.json.paging.next : undefined;
  }
  return out;
}

async function dialogTemplates(inbox: InboxRecord): Promise<Record<string, unknown>[] | undefined> {
  const answer = await callProvider({ method: 'GET', url: `${dialogBase()}/configs/templates`, headers: providerHeaders(inbox) });
  return answer.ok && Array.isArray(answer.json?.waba_templates) ? answer.json.waba_templates : undefined;
}

/**
 * Chatwoot's provider check on create: Cloud lists the business account's templates (a refusal is 422); 360dialog
 * registers our webhook URL (a refusal is 422). The templates are synced then (kept empty when that fails).
 */
async function connect(inbox: InboxRecord): Promise<Partial<InboxRecord>> {
  const at = Math.floor(Date.now() / 1000);
  if (providerOf(inbox) === 'whatsapp_cloud') {
    const templates = await cloudTemplates(inbox);
    if (!templates) throw invalidCredentials();
    return { message_templates: templates, message_templates_last_updated: at };
  }
  const registered = await callProvider({
    method: 'POST',
    url: `${dialogBase()}/configs/webhook`,
    headers: { ...jsonHeaders, ...providerHeaders(inbox) },
    body: JSON.stringify({ url: `${config().frontendUrl}/webhooks/whatsapp/${inbox.phone_number}` }),
  });
  if (!registered.ok) throw invalidCredentials();
  return { message_templates: (await dialogTemplates(inbox)) ?? [], message_templates_last_updated: at };
}

/** The Graph version of Chatwoot's WhatsApp setup calls (its WHATSAPP_API_VERSION's default). */
const SETUP_VERSION = 'v22.0';

/**
 * Chatwoot's WebhookSetupService for a Cloud inbox set up by hand (not by embedded signup, whose flow subscribes
 * itself): the app subscribed on the business account with our callback (`FRONTEND_URL/webhooks/whatsapp/<number>`)
 * and the inbox's verify token, so Meta sends this number's webhooks here. Whether Meta took it.
 */
async function subscribeWebhook(inbox: InboxRecord): Promise<boolean> {
  const waba = setting(inbox, 'business_account_id');
  const token = setting(inbox, 'api_key');
  if (!waba || !token) return false;
  const answer = await callProvider({
    method: 'POST',
    url: `${cloudBase()}/${SETUP_VERSION}/${encodeURIComponent(waba)}/subscribed_apps`,
    headers: { ...jsonHeaders, authorization: `Bearer ${token}` },
    body: JSON.stringify({
      override_callback_uri: `${config().frontendUrl}/webhooks/whatsapp/${inbox.phone_number}`,
      verify_token: setting(inbox, 'webhook_verify_token'),
    }),
  });
  return answer.ok;
}

const autoSubscribes = (inbox: InboxRecord) => providerOf(inbox) === 'whatsapp_cloud' && setting(inbox, 'source') !== 'embedded_signup';

/** What the provider checks (the credentials, the number the callback names) differ between two states of an inbox. */
const credentialsChanged = (a: InboxRecord, b: InboxRecord) =>
  a.provider !== b.provider ||
  a.phone_number !== b.phone_number ||
  ['api_key', 'phone_number_id', 'business_account_id'].some((k) => setting(a, k) !== setting(b, k));

/**
 * Creating an inbox: the provider check and the templates, then (Cloud, by hand) the webhook subscription; a refused
 * subscription leaves the inbox made and marked `reauthorization_required` (Chatwoot's prompt_reauthorization!).
 * Changing its credentials or number: checked again the same way (a refusal is 422 and nothing is stored); taken,
 * they clear the reauthorization mark (Chatwoot's reauthorized!). Other changes call nothing.
 */
async function setup(inbox: InboxRecord, before?: InboxRecord): Promise<InboxRecord> {
  if (before && !credentialsChanged(before, inbox)) return inbox;
  const checked: InboxRecord = { ...inbox, ...(await connect(inbox)) };
  const subscribed = autoSubscribes(checked) ? await subscribeWebhook(checked) : true;
  return subscribed
    ? { ...checked, reauthorization_required: false, authorization_error_count: 0 }
    : { ...checked, reauthorization_required: true };
}

async function syncTemplates(inbox: InboxRecord): Promise<Partial<InboxRecord>> {
  // Chatwoot marks the sync's time even when the provider refuses it.
  // A stored inbox whose token Meta refuses counts toward its reauthorization.
  const templates =
    providerOf(inbox) === 'whatsapp_cloud' ? await cloudTemplates(inbox, (a) => noteTokenRefused(inbox, a)) : await dialogTemplates(inbox);
  return { ...(templates ? { message_templates: templates } : {}), message_templates_last_updated: Math.floor(Date.now() / 1000) };
}

export const whatsappRoom: ChannelRoom = {
  ...whatsappWebhook,
  channelTypes: ['Channel::Whatsapp'],
  setup,
  syncTemplates,
  fetchMedia,
  send,
};
