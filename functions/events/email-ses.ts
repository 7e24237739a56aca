import { sesInbound } from '#shared/channels/email/ingress.ts';
import { observed } from '#shared/metrics.ts';

// SES receiving: its receipt rule stored the mail in the mail bucket and invokes this (docs/mail.md#ways-in).
export const handler = observed(sesInbound);
