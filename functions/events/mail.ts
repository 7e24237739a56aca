import { sendMails } from '#shared/domain/mail/send.ts';
import { observed } from '#shared/metrics.ts';

export const handler = observed(sendMails);
