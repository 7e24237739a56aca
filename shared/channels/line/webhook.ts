import { findChannelInbox } from '#shared/db/repositories/channels.ts';
import type { RoomWebhook, WebhookRequest } from '../channel.ts';
import { lineSignatureValid } from '../signatures.ts';
import { parseLine } from './parse.ts';

// LINE's webhook side (docs/channels.md#line): the inbox of the path's channel id, X-Line-Signature and the payload's
// events.

function inboxOfPath(req: WebhookRequest) {
  const id = req.params.line_channel_id ?? '';
  return /^[\w-]{1,255}$/.test(id) ? findChannelInbox('LINE', id) : Promise.resolve(undefined);
}

export const lineWebhook = {
  kind: 'line',
  ingest: {
    inbox: inboxOfPath,
    verify: (req, inbox) => lineSignatureValid(req.body, req.headers['x-line-signature'], inbox.line_channel_secret ?? ''),
    parse: (body) => parseLine(body),
    accepted: { status: 200 },
  },
} satisfies RoomWebhook;
