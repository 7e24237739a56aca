import { config, providerConfig } from '#shared/config.ts';
import { addChannelKey, findChannelOwner } from '#shared/db/repositories/channels.ts';
import type { OutgoingContext } from '#shared/domain/channels/send.ts';
import { telegramKeys } from '#shared/domain/inboxes/service.ts';
import { ServiceError, unprocessable } from '#shared/errors.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import { fileScope, fileUrl, storedKeyOf } from '#shared/storage/file-urls.ts';
import { getObject } from '#shared/storage/objects.ts';
import type { ChannelRoom, MediaRef, SendOutcome } from '../channel.ts';
import { callProvider, downloadMedia, type ProviderAnswer } from '../http.ts';
import { telegramHtml } from '../markup.ts';
import { attachmentRequests, multipartBody, textForm, type Form, type Outgoing, type Target } from './bodies.ts';
import { messageKey } from './parse.ts';
import { telegramWebhook, tokenOf, webhookSecret } from './webhook.ts';

// Telegram, through the Bot API (docs/channels.md#telegram). Chatwoot's webhook path carries the bot token, which
// every access log would then hold; the service registers `/webhooks/telegram/<bot id>` instead (a Chatwoot-shaped
// path with the whole token is still found) with a `secret_token`, and takes only webhooks that carry it.

const api = (token: string, method: string) => `${providerConfig().telegramBaseUrl}/bot${token}/${method}`;
/** The bot's id: the token's part before the colon (public: it is the bot's user id). */
export const botIdOf = (token: string) => token.split(':')[0];

/** The webhook URL registered at Telegram: under FRONTEND_URL, the bot's id, never its token. */
export const webhookUrl = (token: string) => `${config().frontendUrl}/webhooks/telegram/${botIdOf(token)}`;

const form = (f: Form) => ({
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(f).toString(),
});

/** Telegram's words for a failure: Chatwoot's `"<error_code>, <description>"`. */
function refusalText(a: Extract<ProviderAnswer, { retry: false }>): string {
  const j = a.json;
  if (j && typeof j.description === 'string') return `${j.error_code ?? a.status}, ${j.description}`;
  return a.text.slice(0, 500) || `HTTP ${a.status}`;
}

async function fetchMedia(inbox: InboxRecord, ref: MediaRef) {
  if (!ref.file_id) return undefined;
  const token = tokenOf(inbox);
  const meta = await callProvider({ method: 'GET', url: `${api(token, 'getFile')}?file_id=${encodeURIComponent(ref.file_id)}` });
  const path = meta.ok ? meta.json?.result?.file_path : undefined;
  if (typeof path !== 'string' || path.includes('..')) return undefined;
  return downloadMedia(`${providerConfig().telegramBaseUrl}/file/bot${token}/${path.split('/').map(encodeURIComponent).join('/')}`, {
    filename: ref.filename,
    contentType: ref.mime,
  });
}

/**
 * A document's `sendDocument`: its stored bytes uploaded under its name, as Chatwoot uploads them; a file the
 * service does not hold (an external link) goes as its link.
 */
async function upload(f: Form, file: Outgoing) {
  const key = storedKeyOf(file.record.data_url);
  if (!key) return form({ ...f, document: file.link });
  const data = await getObject(key);
  const { contentType, body } = await multipartBody(f, 'document', {
    data,
    filename: file.record.filename || 'file',
    contentType: file.record.content_type,
  });
  return { headers: { 'content-type': contentType }, body };
}

/** The message id of a send's answer (a Message, or a media group's first). */
const sentId = (json: unknown): string | undefined => {
  const r = (json as { result?: unknown })?.result;
  const m = Array.isArray(r) ? r[0] : r;
  const id = (m as { message_id?: unknown })?.message_id;
  return typeof id === 'number' || typeof id === 'string' ? String(id) : undefined;
};

/**
 * The text, then the attachments (Chatwoot's order); `source_id` is the last request's first message id, as
 * Chatwoot keeps it. A failure once a part went out fails the message without retrying it: a retry would send the
 * parts Telegram already took a second time.
 */
async function send(ctx: OutgoingContext): Promise<SendOutcome> {
  const { inbox, conversation, message } = ctx;
  const token = tokenOf(inbox);
  const attrs = conversation.additional_attributes ?? {};
  const chatId = attrs.chat_id !== undefined && attrs.chat_id !== null ? String(attrs.chat_id) : ctx.recipient;
  const connection = typeof attrs.business_connection_id === 'string' ? attrs.business_connection_id : undefined;
  const target: Target = { chatId, businessConnectionId: connection, replyTo: ctx.replyTo };
  const requests: { method: string; form: Form; file?: Outgoing }[] = [];
  const html = telegramHtml(message.content);
  if (html) requests.push({ method: 'sendMessage', form: textForm(target, html, message) });
  const files = message.attachments
    .filter((a) => a.file_type !== 'location' && a.file_type !== 'contact')
    .map((a) => ({ record: a, link: fileUrl(a.data_url, fileScope.attachment(a.account_id), a.filename) }));
  requests.push(...attachmentRequests(target, files));
  let sourceId: string | undefined;
  for (const r of requests) {
    const answer = await callProvider({
      method: 'POST',
      url: api(token, r.method),
      ...(r.file ? await upload(r.form, r.file) : form(r.form)),
    });
    if (!answer.ok || answer.json?.ok === false) {
      const text = answer.ok ? refusalText({ ...answer, ok: false, retry: false }) : answer.retry ? answer.error : refusalText(answer);
      if (!answer.ok && answer.retry && sourceId === undefined) return { retry: text };
      return { refused: text };
    }
    sourceId = sentId(answer.json) ?? sourceId;
  }
  // Recorded as the chat's message (Telegram's ids are per chat), the key a contact's reply to it names.
  return sourceId ? { sourceId, claimKey: messageKey(chatId, sourceId) } : { refused: 'Telegram answered without a message id' };
}

/**
 * Chatwoot's creation: the bot's `getMe` names the inbox (a bad token is 422 "Bot token invalid token"), and the
 * webhook is registered under FRONTEND_URL, here with the secret token Telegram then sends with every update.
 */
async function setup(inbox: InboxRecord, before?: InboxRecord): Promise<InboxRecord> {
  const token = tokenOf(inbox);
  if (before && before.bot_token === token) return adoptLegacy(inbox);
  return register(inbox, token);
}

/**
 * An inbox made before the bot-id lookup entry existed (only its token's entry was written, and no webhook was
 * registered): a change of the inbox that keeps its token registers the webhook under the bot's id and writes that
 * entry, once (docs/channels.md#telegram). One key read per such change; the webhook path pays nothing.
 */
async function adoptLegacy(inbox: InboxRecord): Promise<InboxRecord> {
  const token = tokenOf(inbox);
  const bot = telegramKeys.bot(botIdOf(token));
  if (!token || (await findChannelOwner('TELEGRAM', bot))) return inbox;
  const registered = await register(inbox, token);
  if (!(await addChannelKey('TELEGRAM', bot, { account_id: inbox.account_id, inbox_id: inbox.id }))) {
    throw unprocessable([{ field: 'channel.bot_token', message: 'has already been taken', code: 'taken' }]);
  }
  return registered;
}

async function register(inbox: InboxRecord, token: string): Promise<InboxRecord> {
  const me = await callProvider({ method: 'GET', url: api(token, 'getMe') });
  if (!me.ok && me.retry) throw new ServiceError('unavailable', 'Telegram did not answer; try again', []);
  const username = me.ok ? me.json?.result?.username : undefined;
  if (typeof username !== 'string' || !username) {
    throw unprocessable([{ field: 'channel.bot_token', message: 'invalid token', code: 'invalid' }], 'Bot token invalid token');
  }
  const hook = await callProvider({
    method: 'POST',
    url: api(token, 'setWebhook'),
    ...form({ url: webhookUrl(token), secret_token: webhookSecret(token) }),
  });
  if (!hook.ok || hook.json?.ok === false) {
    const why = hook.ok ? refusalText({ ...hook, ok: false, retry: false }) : hook.retry ? hook.error : refusalText(hook);
    throw unprocessable([{ field: 'channel.bot_token', message: `webhook not registered: ${why}`, code: 'invalid' }]);
  }
  return { ...inbox, name: username, bot_name: username };
}

export const telegramRoom: ChannelRoom = {
  ...telegramWebhook,
  channelTypes: ['Channel::Telegram'],
  fetchMedia,
  send,
  setup,
};
