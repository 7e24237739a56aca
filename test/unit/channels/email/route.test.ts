import { describe, expect, it } from 'vitest';
import { parseMail } from '#shared/channels/email/parse.ts';
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
