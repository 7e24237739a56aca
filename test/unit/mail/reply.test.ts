import { describe, expect, it } from 'vitest';
import { MAX_ATTACHED_BYTES, replyBody, replyHeaders, splitAttachments, type ReplyInput } from '#shared/domain/mail/reply.ts';

const UUID = '6bdc3f4d-0bec-4515-a284-5d916fdde489';
const base = (over: Partial<ReplyInput> = {}): ReplyInput => ({
  inbox: {
    name: 'Support',
    business_name: 'Acme',
    sender_name_type: 'friendly',
    email: 'support@acme.example',
    email_settings: { imap_enabled: false, smtp_enabled: false },
    channel_type: 'Channel::Email',
  },
  account_id: 3,
  conversation: { id: 12, uuid: UUID, additional_attributes: { mail_subject: 'Where is my order?' } },
  message: { id: 77, content: 'Hi', content_attributes: {} },
  agentName: 'Jane',
  contactEmail: 'alice@customer.example',
  lastIncoming: { message_id: 'their-2@customer.example', references: ['their-1@customer.example'] },
  chatCount: 2,
  mailerSender: 'Chatwoot <accounts@chatwoot.test>',
  inboundDomain: 'inbound.test',
  ...over,
});

describe("an agent's reply as a mail (ConversationReplyMailer#email_reply)", () => {
  it("Chatwoot's headers without the inbox's own SMTP or IMAP", () => {
    expect(replyHeaders(base())).toEqual({
      from: '"Jane from Acme" <accounts@chatwoot.test>',
      replyTo: `"Jane from Acme" <reply+${UUID}@inbound.test>`,
      to: ['alice@customer.example'],
      cc: [],
      bcc: [],
      subject: 'Re: Where is my order?',
      messageId: `<conversation/${UUID}/messages/77@inbound.test>`,
      inReplyTo: '<their-2@customer.example>',
      references: ['<their-1@customer.example>', '<their-2@customer.example>'],
    });
  });

  it('with SMTP the inbox sends as itself; with IMAP replies go to the inbox; professional names', () => {
    const h = replyHeaders(
      base({
        inbox: { ...base().inbox, sender_name_type: 'professional', email_settings: { imap_enabled: true, smtp_enabled: true } },
      }),
    );
    expect(h.from).toBe('"Acme" <support@acme.example>');
    expect(h.replyTo).toBe('"Acme" <support@acme.example>');
  });

  it('a first reply: no Re:, the fallback In-Reply-To, recipients from the message', () => {
    const h = replyHeaders(
      base({
        chatCount: 1,
        lastIncoming: undefined,
        message: {
          id: 5,
          content: 'x',
          content_attributes: { to_emails: ['a@x.example'], cc_emails: ['c@x.example'], bcc_emails: 'b@x.example' },
        },
      }),
    );
    expect(h.subject).toBe('Where is my order?');
    expect(h.inReplyTo).toBe(`<account/3/conversation/${UUID}@inbound.test>`);
    expect(h.references).toEqual([h.inReplyTo]);
    expect([h.to, h.cc, h.bcc]).toEqual([['a@x.example'], ['c@x.example'], ['b@x.example']]);
  });

  it('a conversation without a subject (widget continuity) gets the display-id subject', () => {
    const h = replyHeaders(
      base({
        conversation: { id: 9, uuid: UUID, additional_attributes: {} },
        inbox: { ...base().inbox, channel_type: 'Channel::WebWidget', email: null },
      }),
    );
    expect(h.subject).toBe('[#9] New messages on this conversation');
    expect(h.from).toBe('"Jane from Acme" <accounts@chatwoot.test>');
  });

  it('attaches files up to 20 MB in all and links the rest', () => {
    const f = (n: string, size: number) => ({ filename: n, content_type: 'application/pdf', size, url: `https://files/${n}` });
    const { attached, linked } = splitAttachments([f('a', 15 * 1024 * 1024), f('b', 6 * 1024 * 1024), f('c', 1024)]);
    expect(attached.map((x) => x.filename)).toEqual(['a', 'c']);
    expect(linked.map((x) => x.filename)).toEqual(['b']);
    expect(attached.reduce((s, x) => s + x.size, 0)).toBeLessThanOrEqual(MAX_ATTACHED_BYTES);
    // Chatwoot's email_reply views: the message, then "Attachments:" and a link per file too large to attach.
    const body = replyBody('<p>Hi</p>', 'Hi', [...linked, f('d&e', 30 * 1024 * 1024)]);
    expect(body.html).toBe(
      '<p>Hi</p><p>Attachments:</p><p><a href="https://files/b" target="_blank">b</a></p><p><a href="https://files/d&#38;e" target="_blank">d&#38;e</a></p>',
    );
    expect(body.text).toBe('Hi\n\nAttachments:\nb: https://files/b\nd&e: https://files/d&e');
    // Nothing linked: the message alone, no heading, no footer.
    expect(replyBody('<p>Hi</p>', 'Hi **there**', [])).toEqual({ html: '<p>Hi</p>', text: 'Hi **there**' });
    // A message of files only: the links alone.
    expect(replyBody('', '', linked).text).toBe('Attachments:\nb: https://files/b');
  });
});

describe("a reply's HTML", () => {
  it('renders the Markdown and keeps no raw HTML that could run', async () => {
    const { replyHtml } = await import('#shared/domain/mail/html.ts');
    expect(await replyHtml('We are on it **today**.')).toBe('<p>We are on it <strong>today</strong>.</p>\n');
    expect(await replyHtml('x <script>alert(1)</script> <img src=x onerror=alert(1)>')).not.toMatch(/script|onerror/);
    expect(await replyHtml('')).toBe('');
  });
});
