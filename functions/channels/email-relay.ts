import { relayInbound } from '#shared/channels/email/ingress.ts';
import { rawHandler } from '#shared/http/raw.ts';

// `POST /rails/action_mailbox/relay/inbound_emails`: Rails' ActionMailbox relay ingress, so relays set up for
// Chatwoot keep working (docs/mail.md#ways-in). Mails up to API Gateway's 10 MB.
export const handler = rawHandler(relayInbound, { maxBytes: 10 * 1024 * 1024 });
