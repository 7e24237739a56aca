import { createHmac } from 'node:crypto';
import { providerConfig } from '#shared/config.ts';
import type { OutgoingContext } from '#shared/domain/channels/send.ts';
import { fileScope, fileUrl } from '#shared/storage/file-urls.ts';
import type { SendOutcome } from './channel.ts';
import { callProvider, type ProviderAnswer } from './http.ts';
import { plainText } from './markup.ts';

// Meta's Graph API, for the rooms that call it (Messenger; Instagram through a page or its own login): the
// `appsecret_proof` that goes with a token when the app requires it, Graph's error in its own words, and the
// Instagram reply both kinds of Instagram inbox send.

/** `appsecret_proof`: hex HMAC-SHA256(app secret, access token). */
export const appSecretProof = (appSecret: string, accessToken: string) => createHmac('sha256', appSecret).update(accessToken).digest('hex');

/** `access_token` and, with an app secret, its `appsecret_proof`. */
export function tokenQuery(token: string): string {
  const secret = providerConfig().fbAppSecret;
  const q = new URLSearchParams({ access_token: token });
  if (secret) q.set('appsecret_proof', appSecretProof(secret, token));
  return q.toString();
}

/** Graph's error object of an answer (`{error: {message, type, code, error_subcode}}`), if it has one. */
export function graphError(a: ProviderAnswer): { message?: string; code?: number; type?: string } | undefined {
  if (a.ok && !a.json?.error) return undefined;
  const e = 'json' in a ? a.json?.error : undefined;
  return e && typeof e === 'object' ? { message: e.message, code: e.code, type: e.type } : {};
}

/** Whether Graph refused the token itself (expired, revoked, changed password): the page must be authorized again. */
export const isTokenError = (e: { code?: number; type?: string } | undefined) => !!e && (e.code === 190 || e.code === 102);

/** Graph's error in Instagram's words: Chatwoot's `"<code> - <message>"`. */
export const instagramErrorText = (e: { message?: string; code?: number } | undefined) =>
  e?.message ? `${e.code ?? ''} - ${e.message}` : 'Instagram was unable to process this request';

/**
 * Nested form fields as Rails encodes them (`recipient[id]=…&message[attachment][payload][url]=…`): Chatwoot sends
 * Instagram's messages form-encoded.
 */
export function nestedForm(value: Record<string, unknown>, prefix = ''): [string, string][] {
  return Object.entries(value).flatMap(([k, v]) => {
    const key = prefix ? `${prefix}[${k}]` : k;
    return v && typeof v === 'object'
      ? nestedForm(v as Record<string, unknown>, key)
      : v === undefined
        ? []
        : [[key, String(v)] as [string, string]];
  });
}

/**
 * An Instagram reply (Chatwoot's Instagram send services, both kinds of inbox): the attachments first, then the
 * text (plain), each its own form-encoded request (`recipient[id]`, `message[text]` or
 * `message[attachment][type|payload][url]`, and `messaging_type=MESSAGE_TAG&tag=HUMAN_AGENT` when the installation's
 * setting says so) to `url`; `source_id` the last `message_id`; errors as `"<code> - <message>"`. `tokenRefused`
 * is called when Graph refuses the token itself (code 190). A failure once a part went out fails the message rather
 * than retrying it.
 */
export async function sendInstagramParts(
  ctx: OutgoingContext,
  url: string,
  opts: { humanAgent: boolean; tokenRefused: () => Promise<void> },
): Promise<SendOutcome> {
  const { message } = ctx;
  const parts: Record<string, unknown>[] = [];
  for (const a of message.attachments) {
    if (a.file_type === 'location' || a.file_type === 'contact' || a.file_type === 'fallback') continue;
    const type = ['image', 'audio', 'video'].includes(a.file_type) ? a.file_type : 'file';
    parts.push({ attachment: { type, payload: { url: fileUrl(a.data_url, fileScope.attachment(a.account_id), a.filename) } } });
  }
  const text = plainText(message.content);
  if (text) parts.push({ text });
  const tag = opts.humanAgent ? { messaging_type: 'MESSAGE_TAG', tag: 'HUMAN_AGENT' } : {};
  let sourceId: string | undefined;
  // Every earlier part's id too: Meta echoes each part, and an echo of ours must be known as ours.
  const partIds: string[] = [];
  for (const part of parts) {
    const answer = await callProvider({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(nestedForm({ recipient: { id: ctx.recipient }, message: part, ...tag })).toString(),
    });
    const id = answer.ok ? answer.json?.message_id : undefined;
    if (typeof id === 'string' && id) {
      if (sourceId) partIds.push(sourceId);
      sourceId = id;
      continue;
    }
    if (!answer.ok && answer.retry && sourceId === undefined) return { retry: answer.error };
    const error = graphError(answer);
    if (error?.code === 190) await opts.tokenRefused();
    return { refused: instagramErrorText(error) };
  }
  return sourceId ? { sourceId, partIds } : { refused: 'Instagram was unable to process this request' };
}
