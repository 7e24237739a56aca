import { describe, expect, it } from 'vitest';
import { embedInlineImages, mailContent, parseMail, parseMailHeaders, serializedMail } from '#shared/channels/email/parse.ts';
import { mailFixture } from '../../../support/mail-fixtures.ts';

const TO = 'abcdefghijklmnop1234@inbound.test';
const parse = (name: Parameters<typeof mailFixture>[0], headers?: string[]) =>
  parseMail(mailFixture(name, { to: TO, messageId: `${name}-1@customer.example`, headers }));

describe('parseMail over real RFC 822 mails', () => {
  it('a plain mail: sender, receivers, ids, decoded text with its full/reply/quoted split', async () => {
    const m = await parse('plain', ['In-Reply-To: <conversation/u-1/messages/7@inbound.test>', 'References: <a@x> <b@y>']);
    expect(m.messageId).toBe('plain-1@customer.example');
    expect(m.sender).toBe('alice@customer.example');
    expect(m.senderName).toBe('Alice Example');
    expect(m.from).toEqual(['alice@customer.example']);
    expect(m.to).toEqual([TO]);
    expect(m.subject).toBe('Where is my order?');
    expect(m.date).toBe('2026-11-24T10:15:00.000Z');
    expect(m.inReplyTo).toBe('conversation/u-1/messages/7@inbound.test');
    expect(m.references).toEqual(['a@x', 'b@y']);
    expect(m.text?.full).toContain('Café money spent!');
    expect(m.text?.full).toContain('> Thanks for your order.');
    expect(m.text?.reply).toBe(m.text?.full);
    expect(m.text?.quoted).toBe('Hello, my order #1234 has not arrived. Café money spent!');
    expect(m.html).toBeNull();
    expect(m.autoReply).toBe(false);
    expect(m.bounced).toBe(false);
    expect(mailContent(m)).toBe(m.text?.full);
    const s = serializedMail(m);
    expect(s).toMatchObject({ cc: null, bcc: null, multipart: false, number_of_attachments: 0, html_content: {}, auto_reply: false });
    expect(s.content_type).toMatch(/^text\/plain/);
  });

  it('HTML with an inline image: sanitised HTML, quote-free reply text, the image inline with its cid', async () => {
    const m = await parse('html-inline');
    expect(m.subject).toBe('Screenshot of the érror');
    expect(m.multipart).toBe(true);
    expect(m.text?.full).toContain('[image: error.png]');
    expect(m.html?.full).toContain('<b>error</b>');
    expect(m.html?.full).toContain('src="cid:img1@customer.example"');
    expect(m.html?.full).not.toMatch(/script|onclick/);
    expect(m.html?.reply).toContain('See the error below.');
    expect(m.html?.reply).not.toContain('old quoted text');
    expect(m.attachments).toHaveLength(1);
    expect(m.attachments[0]).toMatchObject({ filename: 'error.png', contentType: 'image/png', cid: 'img1@customer.example', inline: true });
    expect(m.attachments[0].content.subarray(1, 4).toString()).toBe('PNG');
    const embedded = embedInlineImages(serializedMail(m), [
      { cid: 'img1@customer.example', filename: 'error.png', url: 'https://files/x.png' },
    ]);
    expect((embedded.html_content as { full: string }).full).toContain('src="https://files/x.png"');
  });

  it('multipart with attachments: every file, cc, the count', async () => {
    const m = await parse('attachments');
    expect(m.cc).toEqual(['dave@customer.example']);
    expect(m.text?.full.trim()).toBe('Two files attached.');
    expect(m.attachments.map((a) => [a.filename, a.contentType, a.inline])).toEqual([
      ['invoice.pdf', 'application/pdf', false],
      ['lines.csv', 'text/csv', false],
    ]);
    expect(m.attachments[0].content.subarray(0, 5).toString()).toBe('%PDF-');
    expect(serializedMail(m).number_of_attachments).toBe(2);
  });

  it('a forwarded mail: X-Original-Sender, X-Forwarded-For kept in headers', async () => {
    const m = await parse('forwarded');
    expect(m.sender).toBe('erin@customer.example');
    expect(m.to).toEqual(['support@acme.example']);
    expect(m.forwardedFor).toBe(`support@acme.example ${TO}`);
    expect(m.headers).toEqual({
      'x-original-from': 'Erin <erin@customer.example>',
      'x-original-sender': 'erin@customer.example',
      'x-forwarded-for': `support@acme.example ${TO}`,
    });
  });

  it('Reply-To wins over X-Original-Sender and From', async () => {
    const m = await parse('forwarded', ['Reply-To: Real One <Real@Customer.example>']);
    expect(m.sender).toBe('real@customer.example');
    expect(m.from).toEqual(['real@customer.example']);
    expect(m.senderName).toBe('Real One');
  });

  it('auto-replies: Auto-Submitted (not "no"), X-Autoreply, Precedence', async () => {
    expect((await parse('auto-reply')).autoReply).toBe(true);
    expect((await parse('plain', ['Auto-Submitted: no'])).autoReply).toBe(false);
    expect((await parse('plain', ['Auto-Submitted: auto-generated'])).autoReply).toBe(true);
    expect((await parse('plain', ['Precedence: bulk'])).autoReply).toBe(true);
    expect((await parse('plain', ['Precedence: first-class'])).autoReply).toBe(false);
    expect(serializedMail(await parse('auto-reply')).auto_reply).toBe(true);
  });

  it('a bounce without a sender: no sender, flagged as bounced', async () => {
    const m = await parse('bounce');
    expect(m.sender).toBeUndefined();
    expect(m.bounced).toBe(true);
  });

  it('a mail without a Message-ID gets a stable one (the same mail twice dedups)', async () => {
    const raw = Buffer.from('From: a@customer.example\r\nTo: x@inbound.test\r\nSubject: s\r\n\r\nbody\r\n');
    const [a, b] = [await parseMail(raw), await parseMail(raw)];
    expect(a.messageId).toMatch(/^[0-9a-f]{64}@mail\.missing$/);
    expect(b.messageId).toBe(a.messageId);
  });

  it('parseMailHeaders reads the header block alone', async () => {
    const h = await parseMailHeaders(mailFixture('attachments', { to: TO, messageId: 'h-1@customer.example' }));
    expect([h.messageId, h.sender, h.to, h.attachments.length, h.text]).toEqual([
      'h-1@customer.example',
      'carol@customer.example',
      [TO],
      0,
      null,
    ]);
  });

  it('keeps only the last 15 attachments', async () => {
    const parts = Array.from({ length: 17 }, (_, i) =>
      ['--b', `Content-Type: text/plain; name="f${i}.txt"`, `Content-Disposition: attachment; filename="f${i}.txt"`, '', `file ${i}`].join(
        '\r\n',
      ),
    );
    const raw = Buffer.from(
      ['From: a@customer.example', 'To: x@inbound.test', 'Content-Type: multipart/mixed; boundary="b"', '', ...parts, '--b--', ''].join(
        '\r\n',
      ),
    );
    const m = await parseMail(raw);
    expect(m.attachmentCount).toBe(17);
    expect(m.attachments.map((a) => a.filename)).toEqual(Array.from({ length: 15 }, (_, i) => `f${i + 2}.txt`));
  });
});
