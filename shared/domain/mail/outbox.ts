import { randomId } from '#shared/crypto/tokens.ts';
import { putMailRequest } from '#shared/db/repositories/mail.ts';
import { now } from '#shared/model/time.ts';
import type { MailRequestRecord } from '#shared/model/mail.ts';

// Services ask for mail by writing an outbox item; the events pipeline renders and sends it (mail/compose.ts,
// mail/send.ts). The request is answered at once, as Chatwoot's `deliver_later` is.

/** Outbox items live three days: long enough for the stream (24 h) and a stalled pipeline's replay. */
export const MAIL_REQUEST_TTL_SECONDS = 3 * 24 * 3600;

type NewRequest = MailRequestRecord extends infer R
  ? R extends MailRequestRecord
    ? Omit<R, 'id' | 'created_at' | 'expires_at'>
    : never
  : never;

/** Writes the request (a random id unless `id` names it: asked again under the same id, nothing more is mailed). */
export async function requestMail(r: NewRequest, id = randomId()): Promise<string> {
  const t = now();
  await putMailRequest({ ...r, id, created_at: t, expires_at: t + MAIL_REQUEST_TTL_SECONDS } as MailRequestRecord);
  return id;
}
