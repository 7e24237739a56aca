import { seal, unseal } from '#shared/crypto/tokens.ts';
import type { Mail, QueuedMail, SealedMail } from '#shared/model/mail.ts';

// Mails that carry a secret go on the mail queue sealed with the token key (AES-256-GCM): a message read
// off the queue or its dead-letter queue shows its id and kind only.

/** Seals a mail for the queue: only its id and kind stay readable. */
export async function sealMail(mail: Mail): Promise<SealedMail> {
  const { id, kind, ...secret } = mail;
  return { id, kind, sealed: await seal(JSON.stringify(secret)) };
}

/** The mail a queued one holds (the mail function, right before sending). */
export async function openMail(queued: QueuedMail): Promise<Mail> {
  if (queued.kind === 'conversation_reply') throw new Error('a conversation reply is not a rendered mail');
  if (!('sealed' in queued)) return queued;
  const secret = JSON.parse(await unseal(queued.sealed)) as Omit<Mail, 'id' | 'kind'>;
  return { ...secret, id: queued.id, kind: queued.kind };
}
