import { timingSafeEqual } from 'node:crypto';
import { findChannelInbox } from '#shared/db/repositories/channels.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import { providerSetting, type RoomWebhook, type WebhookRequest } from '../channel.ts';
import { basicAuth } from '../http.ts';
import { parseBandwidth } from './parse.ts';

// Bandwidth's webhook side (docs/channels.md#bandwidth): `POST /webhooks/sms/{phone_number}`, its optional basic auth
// and the payload's events.

const setting = providerSetting;

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

export const bandwidthWebhook = {
  kind: 'bandwidth',
  ingest: { inbox: inboxOf, verify, parse: (body) => parseBandwidth(body), accepted: { status: 200 } },
} satisfies RoomWebhook;
