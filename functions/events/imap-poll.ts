import { pollImap } from '#shared/channels/email/ingress.ts';
import { observed } from '#shared/metrics.ts';

// The IMAP poll, on a schedule (docs/mail.md#imap): every email inbox with IMAP on.
export const handler = observed(pollImap);
