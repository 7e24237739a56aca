import { providerConfig } from '#shared/config.ts';
import type { OutgoingContext } from '#shared/domain/channels/send.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import { fileScope, fileUrl } from '#shared/storage/file-urls.ts';
import { providerSetting, type ChannelRoom, type MediaRef, type SendOutcome } from '../channel.ts';
import { basicAuth, callProvider, downloadMedia, jsonHeaders, onOrigin } from '../http.ts';
import { plainText } from '../markup.ts';
import { bandwidthWebhook } from './webhook.ts';

// Bandwidth SMS (`Channel::Sms`, docs/channels.md#bandwidth): `POST /webhooks/sms/{phone_number}` (the number
// without `+`), the messaging API for sends.

const setting = providerSetting;
const auth = (inbox: InboxRecord) => basicAuth(setting(inbox, 'api_key'), setting(inbox, 'api_secret'));

/** A media URL is fetched with the API credentials only on Bandwidth's API host; any other without them. */
const fetchMedia = (inbox: InboxRecord, ref: MediaRef) =>
  ref.url
    ? downloadMedia(ref.url, { headers: onOrigin(ref.url, providerConfig().bandwidthBaseUrl) ? { authorization: auth(inbox) } : {} })
    : Promise.resolve(undefined);

async function send(ctx: OutgoingContext): Promise<SendOutcome> {
  const { inbox, message } = ctx;
  const media = message.attachments
    .filter((a) => a.file_type !== 'location' && a.file_type !== 'contact')
    .map((a) => fileUrl(a.data_url, fileScope.attachment(a.account_id), a.filename));
  const body = {
    to: ctx.recipient,
    from: inbox.phone_number,
    text: plainText(message.content),
    applicationId: setting(inbox, 'application_id'),
    ...(media.length ? { media } : {}),
  };
  const answer = await callProvider({
    method: 'POST',
    url: `${providerConfig().bandwidthBaseUrl}/users/${encodeURIComponent(setting(inbox, 'account_id'))}/messages`,
    headers: { ...jsonHeaders, authorization: auth(inbox) },
    body: JSON.stringify(body),
  });
  if (answer.ok)
    return typeof answer.json?.id === 'string' ? { sourceId: answer.json.id } : { refused: 'Bandwidth answered without a message id' };
  if (answer.retry) return { retry: answer.error };
  return {
    refused:
      (typeof answer.json?.description === 'string' && answer.json.description) || answer.text.slice(0, 500) || `HTTP ${answer.status}`,
  };
}

export const bandwidthRoom: ChannelRoom = {
  ...bandwidthWebhook,
  channelTypes: ['Channel::Sms'],
  fetchMedia,
  send,
};
