import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// Real RFC 822 mails (test/fixtures/mail/*.eml, CRLF line ends) with `{{TO}}` and `{{MESSAGE_ID}}` filled in,
// and a few headers added on top where a test needs them (In-Reply-To, References).

export type MailFixture = 'plain' | 'html-inline' | 'attachments' | 'forwarded' | 'auto-reply' | 'bounce';

export interface FixtureFill {
  to: string;
  messageId: string;
  /** Extra header lines put first (`Name: value`). */
  headers?: string[];
}

export function mailFixture(name: MailFixture, fill: FixtureFill): Buffer {
  const template = readFileSync(fileURLToPath(new URL(`../fixtures/mail/${name}.eml`, import.meta.url)), 'utf8');
  const body = template.replaceAll('{{TO}}', fill.to).replaceAll('{{MESSAGE_ID}}', fill.messageId);
  return Buffer.from([...(fill.headers ?? []), ''].join('\r\n') + body);
}
