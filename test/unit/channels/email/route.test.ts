import { describe, expect, it } from 'vitest';
import { MAX_MAIL_ID_BYTES, MAX_REFERENCES, parseMail } from '#shared/channels/email/parse.ts';
import { dropReason, inboxCandidates, normalizeAddress, receiverUuid, threadHints, uuidInMessageId } from '#shared/channels/email/route.ts';
import { mailFixture } from '../../../support/mail-fixtures.ts';

const UUID = '6bdc3f4d-0bec-4515-a284-5d916fdde489';
const mail = (headers: string[] = [], to = 'Support+Sales@Acme.example') =>
  parseMail(mailFixture('plain', { to, messageId: 'm-1@customer.example', headers }));

describe('routing an incoming mail', () => {
  it('normalises addresses as EmailChannelFinder: lowercased, +tag removed', () => {
    expect(normalizeAddress('Support+Sales@Acme.EXAMPLE')).toBe('support@acme.example');
    expect(normalizeAddress('plain@x.example')).toBe('plain@x.example');
  });

  it('looks for the inbox in To, Cc, X-Original-To, Bcc and the envelope, in that order, without repeats', async () => {
    const m = await mail(['Cc: c@acme.example', 'X-Original-To: fwd123@inbound.test', 'Bcc: b@acme.example']);
    expect(inboxCandidates(m, ['fwd123@inbound.test', 'env@inbound.test'])).toEqual([
      'support@acme.example',
      'c@acme.example',
      'fwd123@inbound.test',
      'b@acme.example',
      'env@inbound.test',
    ]);
  });

  it('finds reply+<uuid> in To, else in X-Forwarded-For when To is empty', async () => {
    expect(receiverUuid(await mail([], `reply+${UUID.toUpperCase()}@inbound.test`))).toBe(UUID);
    expect(receiverUuid(await mail([], 'reply+not-a-uuid@inbound.test'))).toBeUndefined();
    const forwarded = await parseMail(
      Buffer.from(`From: a@customer.example\r\nX-Forwarded-For: reply+${UUID}@inbound.test\r\nSubject: s\r\n\r\nx\r\n`),
    );
    expect(receiverUuid(forwarded)).toBe(UUID);
  });

  it('skips message ids too long for a table key and keeps the last 20 References, so threading is bounded', async () => {
    const long = `${'x'.repeat(MAX_MAIL_ID_BYTES)}@customer.example`;
    const refs = Array.from({ length: 3000 }, (_, i) => `<r${i}@customer.example>`).join(' ');
    const m = await parseMail(
      Buffer.from(
        `From: a@customer.example\r\nTo: s@acme.example\r\nMessage-ID: <${long}>\r\nIn-Reply-To: <${long}>\r\nReferences: ${refs} <${long}>\r\nSubject: s\r\n\r\nx\r\n`,
      ),
    );
    // An over-long Message-ID is as missing: the mail's hash stands for it (deterministic, so a redelivery is still one message).
    expect(m.messageId).toMatch(/^[0-9a-f]{64}@mail\.missing$/);
    expect(m.inReplyTo).toBeUndefined();
    expect(m.references).toHaveLength(MAX_REFERENCES);
    expect(m.references[0]).toBe('r2980@customer.example');
    expect(m.references.at(-1)).toBe('r2999@customer.example');
    expect(threadHints(m)).toHaveLength(MAX_REFERENCES);
    const fits = `${'y'.repeat(MAX_MAIL_ID_BYTES - 20)}@customer.example`;
    const ok = await parseMail(
      Buffer.from(`From: a@customer.example\r\nMessage-ID: <${fits}>\r\nIn-Reply-To: <${fits}>\r\nSubject: s\r\n\r\nx\r\n`),
    );
    expect([ok.messageId, ok.inReplyTo]).toEqual([fits, fits]);
  });

  it('reads conversation uuids out of our Message-IDs', () => {
    expect(uuidInMessageId(`conversation/${UUID}/messages/42@inbound.test`)).toBe(UUID);
    expect(uuidInMessageId(`account/1/conversation/${UUID}@inbound.test`)).toBe(UUID);
    expect(uuidInMessageId('CAF=abc@mail.gmail.com')).toBeUndefined();
  });

  it('threads by receiver uuid, then In-Reply-To, then each References entry', async () => {
    const m = await mail(
      [`In-Reply-To: <their-1@customer.example>`, `References: <account/1/conversation/${UUID}@inbound.test> <older@customer.example>`],
      `reply+${UUID}@inbound.test`,
    );
    expect(threadHints(m)).toEqual([
      { by: 'receiver_uuid', uuid: UUID },
      { by: 'in_reply_to', messageId: 'their-1@customer.example' },
      { by: 'references', uuid: UUID },
      { by: 'references', messageId: 'older@customer.example' },
    ]);
  });

  it('drops, for a new conversation, mails without a sender and mails from our own sender', async () => {
    expect(dropReason(await mail(), 'Chatwoot <accounts@chatwoot.com>')).toBeUndefined();
    expect(dropReason(await mail(['Reply-To: Accounts@Chatwoot.com']), 'Chatwoot <accounts@chatwoot.com>')).toBe('own_sender');
    const bounce = await parseMail(mailFixture('bounce', { to: 'x@inbound.test', messageId: 'b@x' }));
    expect(dropReason(bounce, 'Chatwoot <accounts@chatwoot.com>')).toBe('no_sender');
  });
});
