import { createHmac } from 'node:crypto';
import { findChannelInbox } from '#shared/db/repositories/channels.ts';
import { telegramKeys } from '#shared/domain/inboxes/service.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import type { RoomWebhook, WebhookRequest } from '../channel.ts';
import { secretMatches } from '../signatures.ts';
import { parseTelegram } from './parse.ts';

// Telegram's webhook side (docs/channels.md#telegram): the inbox of the path's bot, the registered secret token and
// the update's events.

export const tokenOf = (inbox: InboxRecord) => inbox.bot_token ?? '';

/**
 * The `secret_token` the webhook is registered with: derived from the bot token (only who holds the token can
 * compute it, and who holds the token controls the bot anyway), 43 characters of `A-Za-z0-9_-`.
 */
export const webhookSecret = (token: string) => createHmac('sha256', token).update('telegram webhook secret').digest('base64url');

function inboxOfPath(req: WebhookRequest) {
  const p = req.params.bot_token ?? '';
  if (/^\d{1,20}$/.test(p)) return findChannelInbox('TELEGRAM', telegramKeys.bot(p));
  if (/^\d{1,20}:[\w-]{1,200}$/.test(p)) return findChannelInbox('TELEGRAM', telegramKeys.token(p));
  return Promise.resolve(undefined);
}

/** The registered secret token; an inbox without a bot token takes nothing (the secret of '' is anyone's). */
function verify(req: WebhookRequest, inbox: InboxRecord): boolean {
  const token = tokenOf(inbox);
  return !!token && secretMatches(req.headers['x-telegram-bot-api-secret-token'], webhookSecret(token));
}

export const telegramWebhook = {
  kind: 'telegram',
  ingest: {
    inbox: inboxOfPath,
    verify,
    parse: (body) => parseTelegram(body),
    accepted: { status: 200 },
  },
} satisfies RoomWebhook;
