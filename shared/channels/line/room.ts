import { createHash } from 'node:crypto';
import { providerConfig } from '#shared/config.ts';
import type { OutgoingContext } from '#shared/domain/channels/send.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import { fileScope, fileUrl } from '#shared/storage/file-urls.ts';
import type { ChannelRoom, MediaRef, SendOutcome } from '../channel.ts';
import { callProvider, downloadMedia, jsonHeaders, type ProviderAnswer } from '../http.ts';
import { plainText } from '../markup.ts';
import { PUSH_SIZE, lineError, lineMessages } from './bodies.ts';
import { lineWebhook } from './webhook.ts';

// LINE, through the Messaging API (docs/channels.md#line). No call to LINE when the inbox is made: its
// `callback_webhook_url` is pasted into the LINE console.

const bearer = (inbox: InboxRecord) => ({ authorization: `Bearer ${inbox.line_channel_token ?? ''}` });

async function fetchMedia(inbox: InboxRecord, ref: MediaRef) {
  if (!ref.id) return undefined;
  const file = await downloadMedia(`${providerConfig().lineDataBaseUrl}/v2/bot/message/${encodeURIComponent(ref.id)}/content`, {
    headers: bearer(inbox),
    filename: ref.filename,
  });
  if (!file || ref.filename) return file;
  // Chatwoot's name for a file LINE names not: `media-<id>.<extension of its type>`.
  const ext = /\.(\w{2,5})$/.exec(file.filename)?.[1];
  return { ...file, filename: `media-${ref.id}${ext ? `.${ext}` : ''}` };
}

/** The user's profile: its display name (Chatwoot's contact name). */
async function profile(inbox: InboxRecord, contact: { sourceId: string }) {
  const answer = await callProvider({
    method: 'GET',
    url: `${providerConfig().lineBaseUrl}/v2/bot/profile/${encodeURIComponent(contact.sourceId)}`,
    headers: bearer(inbox),
  });
  const name = answer.ok ? answer.json?.displayName : undefined;
  return typeof name === 'string' && name ? { name } : undefined;
}

const refusalText = (a: Extract<ProviderAnswer, { retry: false }>) => lineError(a.json) ?? (a.text.slice(0, 500) || `HTTP ${a.status}`);

/**
 * LINE's retry key of one push of a message (`X-Line-Retry-Key`, a UUID): the same on every attempt, so LINE carries
 * out the push once and answers a repeat 409.
 */
export function pushRetryKey(m: Pick<OutgoingContext['message'], 'account_id' | 'inbox_id' | 'id'>, push: number): string {
  const h = createHash('sha256').update(`line-push:${m.account_id}:${m.inbox_id}:${m.id}:${push}`).digest('hex');
  // Version 5 and RFC 4122 variant bits, so the key is a well-formed UUID.
  const variant = ((Number.parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * `POST /v2/bot/message/push`, five messages a push, each push with its retry key. A push answered 200 is
 * `delivered` (Chatwoot's reading); `source_id` is the first message's id in LINE's answer (`sentMessages`), which
 * Chatwoot does not keep. A push LINE already took (409 for its retry key: an earlier attempt whose answer was lost)
 * counts as sent, so a retry after a lost answer or a later push's failure pushes nothing twice.
 */
async function send(ctx: OutgoingContext): Promise<SendOutcome> {
  const { inbox, message } = ctx;
  const files = message.attachments
    .filter((a) => a.file_type === 'image' || a.file_type === 'video')
    .map((a) => ({ record: a, link: fileUrl(a.data_url, fileScope.attachment(a.account_id), a.filename) }));
  const messages = lineMessages(plainText(message.content), message, files);
  if (!messages.length) return { refused: 'Nothing LINE can show: only text, images and videos are sent' };
  let sourceId: string | undefined;
  const fallback = `line-push:${message.id}`;
  for (let i = 0; i < messages.length; i += PUSH_SIZE) {
    const answer = await callProvider({
      method: 'POST',
      url: `${providerConfig().lineBaseUrl}/v2/bot/message/push`,
      headers: { ...jsonHeaders, ...bearer(inbox), 'x-line-retry-key': pushRetryKey(message, i / PUSH_SIZE) },
      body: JSON.stringify({ to: ctx.recipient, messages: messages.slice(i, i + PUSH_SIZE) }),
    });
    if (!answer.ok && answer.retry) return { retry: answer.error };
    if (!answer.ok && answer.status !== 409) return { refused: refusalText(answer) };
    const id = answer.json?.sentMessages?.[0]?.id;
    sourceId ??= typeof id === 'string' || typeof id === 'number' ? String(id) : fallback;
  }
  return { sourceId: sourceId ?? fallback, status: 'delivered' };
}

export const lineRoom: ChannelRoom = {
  ...lineWebhook,
  channelTypes: ['Channel::Line'],
  fetchMedia,
  send,
  profile,
};
