import { timingSafeEqual } from 'node:crypto';
import { config } from '#shared/config.ts';
import { findChannelInbox } from '#shared/db/repositories/channels.ts';
import type { OutgoingContext } from '#shared/domain/channels/send.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import { fileScope, fileUrl } from '#shared/storage/file-urls.ts';
import { providerSetting, type ChannelRoom, type MediaRef, type SendOutcome, type WebhookRequest } from '../channel.ts';
import { basicAuth, callProvider, downloadMedia, jsonHeaders, onOrigin } from '../http.ts';
import { plainText } from '../markup.ts';
import { parseBandwidth } from './parse.ts';

// Bandwidth SMS (`Channel::Sms`, docs/channels.md#bandwidth): `POST /webhooks/sms/{phone_number}` (the number
// without `+`), the messaging API for sends.

const setting = providerSetting;
const auth = (inbox: InboxRecord) => basicAuth(setting(inbox, 'api_key'), setting(inbox, 'api_secret'));

/** The inbox of the path's number (digits; stored with `+`). Delivery receipts name the customer in `to`, so not that. */
const inboxOf = (req: WebhookRequest) => {
  const digits = req.params.phone_number ?? '';
  return /^\d{4,20}$/.test(digits) ? findChannelInbox('SMS', `+${digits}`) : Promise.resolve(undefined);
};

/**
 * Bandwidth signs nothing; its callbacks can carry basic auth set in the Bandwidth application. When the inbox's
 * `provider_config` has `webhook_username`/`webhook_password`, the callback must carry them.
 */
function verify(req: WebhookRequest, inbox: InboxRecord): boolean {
  const user = setting(inbox, 'webhook_username');
  if (!user) return true;
  const expected = Buffer.from(basicAuth(user, setting(inbox, 'webhook_password')));
  const given = Buffer.from(req.headers.authorization ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A media URL is fetched with the API credentials only on Bandwidth's API host; any other without them. */
const fetchMedia = (inbox: InboxRecord, ref: MediaRef) =>
  ref.url
    ? downloadMedia(ref.url, { headers: onOrigin(ref.url, config().bandwidthBaseUrl) ? { authorization: auth(inbox) } : {} })
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
    url: `${config().bandwidthBaseUrl}/users/${encodeURIComponent(setting(inbox, 'account_id'))}/messages`,
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
  kind: 'bandwidth',
  channelTypes: ['Channel::Sms'],
  ingest: { inbox: inboxOf, verify, parse: (body) => parseBandwidth(body), accepted: { status: 200 } },
  fetchMedia,
  send,
};
