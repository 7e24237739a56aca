import { describe, expect, it } from 'vitest';
import { withOriginalTo } from '#shared/channels/email/ingest.ts';
import { outcomeOfError } from '#shared/channels/email/send.ts';
import { sesMessageId } from '#shared/outbound/mail.ts';

describe('a mailed reply that did not go out', () => {
  it('an SMTP 5xx is a refusal with the server text; a 4xx and network errors are retried', () => {
    const smtp = (responseCode: number, response: string) => Object.assign(new Error('x'), { responseCode, response });
    expect(outcomeOfError(smtp(550, '550 5.1.1 <a@b>: Recipient address rejected: User unknown'))).toEqual({
      refused: '550 5.1.1 <a@b>: Recipient address rejected: User unknown',
    });
    expect(outcomeOfError(smtp(451, '451 4.3.0 Try again later'))).toEqual({ retry: '451 4.3.0 Try again later' });
    expect(outcomeOfError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ESOCKET' }))).toEqual({
      retry: 'connect ECONNREFUSED 127.0.0.1:1',
    });
    expect(outcomeOfError(Object.assign(new Error('Invalid login'), { code: 'EAUTH' }))).toEqual({ refused: 'Invalid login' });
  });

  it('SES: a rejection is a refusal, throttling and 5xx are retried', () => {
    const ses = (status: number, message: string) => Object.assign(new Error(message), { $metadata: { httpStatusCode: status } });
    expect(outcomeOfError(ses(400, 'Email address is not verified.'))).toEqual({ refused: 'Email address is not verified.' });
    expect(outcomeOfError(ses(429, 'Maximum sending rate exceeded.'))).toEqual({ retry: 'Maximum sending rate exceeded.' });
    expect(outcomeOfError(ses(503, 'Service unavailable'))).toEqual({ retry: 'Service unavailable' });
  });

  it("SES's own Message-ID is the one a customer replies to", () => {
    expect(sesMessageId('0100018c-abc', 'us-east-1')).toBe('0100018c-abc@email.amazonses.com');
    expect(sesMessageId('0100018c-abc', 'eu-west-1')).toBe('0100018c-abc@eu-west-1.amazonses.com');
  });
});

describe('a mail taken in', () => {
  it('gets the envelope recipients as X-Original-To, first', () => {
    const raw = Buffer.from('From: a@b.example\r\nTo: c@d.example\r\n\r\nhi\r\n');
    expect(withOriginalTo(raw, []).equals(raw)).toBe(true);
    expect(withOriginalTo(raw, ['x@inbound.test', 'y@inbound.test']).toString()).toBe(
      `X-Original-To: x@inbound.test, y@inbound.test\r\n${raw.toString()}`,
    );
  });
});
