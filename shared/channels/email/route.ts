import { senderAddress } from '#shared/outbound/mail.ts';
import type { ParsedMail } from './parse.ts';

// Routing and threading rules of an incoming mail (Chatwoot's ApplicationMailbox, EmailChannelFinder and
// Mailbox::ConversationFinder strategies), pure: which addresses may name an inbox, which conversation uuids
// and message ids the mail points at. The lookups behind them are in shared/db/repositories/mail-threads.ts.

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const REPLY_LOCAL_PART = new RegExp(`^reply\\+(${UUID})$`, 'i');
/** `conversation/<uuid>/messages/<id>@…`: the Message-ID of a reply we mailed. */
const MESSAGE_PATTERN = /conversation\/([a-zA-Z0-9-]+)\/messages\/(\d+)@/;
/** `account/<id>/conversation/<uuid>@…`: the In-Reply-To of a first reply, and a References entry of every reply. */
const FALLBACK_PATTERN = /account\/(\d+)\/conversation\/([a-zA-Z0-9-]+)@/;

/** Lowercased, without a `+tag` in the local part (Chatwoot's EmailChannelFinder). */
export function normalizeAddress(address: string): string {
  const at = address.lastIndexOf('@');
  if (at < 0) return address.toLowerCase();
  return `${address.slice(0, at).split('+')[0]}${address.slice(at)}`.toLowerCase();
}

/** Addresses that may name an inbox, in Chatwoot's order: To, Cc, X-Original-To, then Bcc (and the envelope's recipients). */
export function inboxCandidates(mail: ParsedMail, envelopeTo: string[] = []): string[] {
  const all = [...mail.to, ...mail.cc, ...mail.originalTo, ...mail.bcc, ...envelopeTo].map(normalizeAddress);
  return [...new Set(all)];
}

/** The receivers `reply+<uuid>` is looked for in: To, or X-Forwarded-For when To is empty (and the envelope). */
export function receiverUuid(mail: ParsedMail, envelopeTo: string[] = []): string | undefined {
  const receivers = mail.to.length ? mail.to : mail.forwardedFor ? mail.forwardedFor.split(/[\s,]+/) : [];
  for (const address of [...receivers, ...envelopeTo]) {
    const m = REPLY_LOCAL_PART.exec(address.split('@')[0]);
    if (m) return m[1].toLowerCase();
  }
  return undefined;
}

/** The conversation uuid one of our Message-IDs (or References entries) names. */
export function uuidInMessageId(id: string): string | undefined {
  return MESSAGE_PATTERN.exec(id)?.[1] ?? FALLBACK_PATTERN.exec(id)?.[2];
}

export type ThreadHint =
  | { by: 'receiver_uuid'; uuid: string }
  | { by: 'in_reply_to'; uuid: string }
  | { by: 'in_reply_to'; messageId: string }
  | { by: 'references'; uuid: string }
  | { by: 'references'; messageId: string };

/**
 * What may thread the mail into an existing conversation, first hit wins: the `reply+<uuid>` receiver, then
 * In-Reply-To (our id patterns, else a message's Message-ID), then References (the same, each in turn).
 */
export function threadHints(mail: ParsedMail, envelopeTo: string[] = []): ThreadHint[] {
  const hints: ThreadHint[] = [];
  const uuid = receiverUuid(mail, envelopeTo);
  if (uuid) hints.push({ by: 'receiver_uuid', uuid });
  if (mail.inReplyTo) {
    const u = uuidInMessageId(mail.inReplyTo);
    hints.push(u ? { by: 'in_reply_to', uuid: u } : { by: 'in_reply_to', messageId: mail.inReplyTo });
  }
  for (const ref of mail.references) {
    const u = uuidInMessageId(ref);
    hints.push(u ? { by: 'references', uuid: u } : { by: 'references', messageId: ref });
  }
  return hints;
}

export type DropReason = 'no_sender' | 'own_sender';

/**
 * Why a mail that would open a new conversation is dropped (Chatwoot's IncomingEmailValidityHelper): no
 * valid sender (bounces), or the service's own notification sender. Mails threaded into a conversation
 * are not asked (as Chatwoot).
 */
export function dropReason(mail: ParsedMail, mailerSender: string): DropReason | undefined {
  if (!mail.sender) return 'no_sender';
  if (mail.sender === senderAddress(mailerSender).toLowerCase()) return 'own_sender';
  return undefined;
}
