import { describe, expect, it } from 'vitest';
import { contactKeyOf, eventIdOf } from '#shared/channels/channel.ts';
import { telegramHtml } from '#shared/channels/markup.ts';
import { attachmentRequests, multipartBody, textForm } from '#shared/channels/telegram/bodies.ts';
import { parseTelegram } from '#shared/channels/telegram/parse.ts';
import type { WebhookRequest } from '#shared/channels/channel.ts';
import { telegramRoom } from '#shared/channels/telegram/room.ts';
import { webhookSecret } from '#shared/channels/telegram/webhook.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import type { AttachmentRecord } from '#shared/model/messages.ts';

// The pure parts of the Telegram room: the Bot API's documented Update payloads read as Chatwoot reads them, the
// form fields Chatwoot sends, Telegram HTML, the webhook's secret token.

const from = { id: 111, is_bot: false, first_name: 'Ivan', last_name: 'Petrov', username: 'ivanp', language_code: 'ru' };
const chat = { id: 111, first_name: 'Ivan', last_name: 'Petrov', username: 'ivanp', type: 'private' };
const update = (fields: Record<string, unknown>) => JSON.stringify({ update_id: 9001, ...fields });

describe('Telegram updates', () => {
  it('reads a private text: contact, source id, reply, conversation attributes; dedup by chat and message id', () => {
    const [e] = parseTelegram(update({ message: { message_id: 7, from, chat, date: 1, text: 'hi', reply_to_message: { message_id: 5 } } }));
    expect(e).toEqual({
      type: 'message',
      media: [],
      message: {
        providerId: '7',
        claimKey: '111:7',
        content: 'hi',
        contentAttributes: { in_reply_to_external_id: '5' },
        inReplyToClaimKey: '111:5',
        conversationAttributes: { chat_id: 111, business_connection_id: null },
        contact: {
          sourceId: '111',
          name: 'Ivan Petrov',
          additional_attributes: {
            username: 'ivanp',
            language_code: 'ru',
            social_telegram_user_id: 111,
            social_telegram_user_name: 'ivanp',
          },
        },
      },
    });
    expect(contactKeyOf(e)).toBe('111');
    expect(eventIdOf(e)).toBe('m:111:7');
  });

  it('skips groups and channels, and updates it does not store', () => {
    expect(parseTelegram(update({ message: { message_id: 1, from, chat: { id: -5, type: 'group' }, text: 'x' } }))[0].type).toBe('skipped');
    expect(parseTelegram(update({ channel_post: { message_id: 1, chat: { id: -5, type: 'channel' } } }))[0]).toEqual({
      type: 'skipped',
      reason: 'update channel_post',
    });
  });

  it('picks the largest photo, a sticker thumbnail, voice as audio, a document with its name and type', () => {
    const media = (m: Record<string, unknown>) => {
      const [e] = parseTelegram(update({ message: { message_id: 1, from, chat, ...m } }));
      return e.type === 'message' ? e.media : [];
    };
    expect(
      media({
        photo: [
          { file_id: 'a', file_size: 10 },
          { file_id: 'b', file_size: 30 },
          { file_id: 'c', file_size: 20 },
        ],
      }),
    ).toEqual([{ file_id: 'b', kind: 'image', mime: undefined, filename: undefined }]);
    expect(media({ sticker: { file_id: 's', thumbnail: { file_id: 't' } } })[0]).toMatchObject({ file_id: 't', kind: 'image' });
    expect(media({ sticker: { file_id: 's', thumb: { file_id: 'old' } } })[0]).toMatchObject({ file_id: 'old' });
    expect(media({ voice: { file_id: 'v', mime_type: 'audio/ogg' } })[0]).toMatchObject({ kind: 'audio', mime: 'audio/ogg' });
    expect(media({ document: { file_id: 'd', file_name: 'a.pdf', mime_type: 'application/pdf' } })[0]).toMatchObject({
      kind: 'file',
      filename: 'a.pdf',
    });
  });

  it('reads a venue, a contact card, a callback query and an edit', () => {
    const [venue] = parseTelegram(
      update({
        message: { message_id: 2, from, chat, venue: { location: { latitude: 1.5, longitude: 2.5 }, title: 'Cafe', address: 'x' } },
      }),
    );
    expect(venue.type === 'message' && venue.message.places?.[0]).toMatchObject({
      file_type: 'location',
      coordinates_lat: 1.5,
      coordinates_long: 2.5,
      fallback_title: 'Cafe',
    });
    const [card] = parseTelegram(
      update({ message: { message_id: 3, from, chat, contact: { phone_number: '+4912345', first_name: 'Max', last_name: 'M' } } }),
    );
    expect(card.type === 'message' && card.message.places?.[0]).toMatchObject({
      file_type: 'contact',
      fallback_title: '+4912345',
      meta: { first_name: 'Max', last_name: 'M' },
    });
    const [q] = parseTelegram(update({ callback_query: { id: '4382', from, message: { message_id: 9, chat }, data: 'yes' } }));
    expect(q.type === 'message' && q.message).toMatchObject({ providerId: '4382', claimKey: 'callback:4382', content: 'yes' });
    const [edit] = parseTelegram(update({ edited_message: { message_id: 7, from, chat, date: 1, edit_date: 2, text: 'fixed' } }));
    expect(edit).toEqual({ type: 'edit', edit: { claimKey: '111:7', contactSourceId: '111', content: 'fixed', eventId: '9001' } });
    expect(eventIdOf(edit)).toBe('e:9001');
  });

  it('a business message: the chat is the contact; the owner’s own message is an echo', () => {
    const customer = { id: 222, first_name: 'Olga', type: 'private' };
    const [incoming] = parseTelegram(
      update({
        business_message: {
          business_connection_id: 'bc1',
          message_id: 4,
          from: { id: 222, first_name: 'Olga' },
          chat: customer,
          text: 'q',
        },
      }),
    );
    expect(incoming.type === 'message' && incoming.message).toMatchObject({
      contact: { sourceId: '222', name: 'Olga' },
      conversationAttributes: { chat_id: 222, business_connection_id: 'bc1' },
    });
    expect(incoming.type === 'message' && incoming.message.echo).toBeUndefined();
    const [echo] = parseTelegram(
      update({
        business_message: {
          business_connection_id: 'bc1',
          message_id: 5,
          from: { id: 999, first_name: 'Owner' },
          chat: customer,
          text: 'a',
        },
      }),
    );
    expect(echo.type === 'message' && echo.message).toMatchObject({ echo: true, contact: { sourceId: '222' } });
  });
});

describe('Telegram requests', () => {
  it('sendMessage: Telegram HTML, reply, business connection, the inline keyboard of an input_select', () => {
    expect(
      textForm({ chatId: '1', replyTo: '5', businessConnectionId: 'bc' }, 'x', { content_type: 'text', content_attributes: {} }),
    ).toEqual({
      chat_id: '1',
      reply_to_message_id: '5',
      business_connection_id: 'bc',
      text: 'x',
      parse_mode: 'HTML',
    });
    const f = textForm({ chatId: '1' }, 'Pick', {
      content_type: 'input_select',
      content_attributes: { items: [{ title: 'A', value: 'a' }] },
    });
    expect(JSON.parse(f.reply_markup)).toEqual({ one_time_keyboard: true, inline_keyboard: [[{ text: 'A', callback_data: 'a' }]] });
  });

  it('attachments: photos and videos in one group, audio in another, documents one by one', () => {
    const a = (file_type: string, n: number) => ({ record: { file_type } as AttachmentRecord, link: `https://f/${n}` });
    const reqs = attachmentRequests({ chatId: '1' }, [a('image', 1), a('file', 2), a('video', 3), a('audio', 4)]);
    expect(reqs.map((r) => r.method)).toEqual(['sendMediaGroup', 'sendMediaGroup', 'sendDocument']);
    expect(JSON.parse(reqs[0].form.media)).toEqual([
      { type: 'photo', media: 'https://f/1' },
      { type: 'video', media: 'https://f/3' },
    ]);
    expect(JSON.parse(reqs[1].form.media)).toEqual([{ type: 'audio', media: 'https://f/4' }]);
    expect(reqs[2].form).toEqual({ chat_id: '1' });
    expect(reqs[2].file?.link).toBe('https://f/2');
  });

  it('a document is a multipart upload of its bytes under its name', async () => {
    const { contentType, body } = await multipartBody({ chat_id: '1' }, 'document', {
      data: Buffer.from('%PDF-1.4 x'),
      filename: 'report.pdf',
      contentType: 'application/pdf',
    });
    expect(contentType).toMatch(/^multipart\/form-data; boundary=/);
    const parsed = await new Response(body, { headers: { 'content-type': contentType } }).formData();
    expect(parsed.get('chat_id')).toBe('1');
    const doc = parsed.get('document') as File;
    expect(doc.name).toBe('report.pdf');
    expect(doc.type).toBe('application/pdf');
    expect(Buffer.from(await doc.arrayBuffer()).toString()).toBe('%PDF-1.4 x');
  });

  it('renders Markdown as Telegram HTML, escaping the rest', () => {
    expect(telegramHtml('Hi **there**, _see_ ~~old~~ `a<b` & <i>x</i>')).toBe(
      'Hi <b>there</b>, <i>see</i> <s>old</s> <code>a&lt;b</code> &amp; &lt;i&gt;x&lt;/i&gt;',
    );
    expect(telegramHtml('[docs](https://x.example/?a=1&b=2)')).toBe('<a href="https://x.example/?a=1&amp;b=2">docs</a>');
  });

  it('derives a webhook secret Telegram accepts (16-256 of A-Za-z0-9_-), one per bot token', () => {
    const s = webhookSecret('123:ABC');
    expect(s).toMatch(/^[A-Za-z0-9_-]{16,256}$/);
    expect(webhookSecret('123:ABD')).not.toBe(s);
  });

  it('takes the webhook only with the secret of the inbox’s bot token; an inbox without a token takes nothing', () => {
    const req = (secret?: string): WebhookRequest => ({
      method: 'POST',
      path: '/webhooks/telegram/123',
      params: { bot_token: '123' },
      query: {},
      headers: secret === undefined ? {} : { 'x-telegram-bot-api-secret-token': secret },
      body: Buffer.from('{}'),
    });
    const verify = telegramRoom.ingest!.verify!;
    const inbox = (bot_token?: string) =>
      ({ id: 1, account_id: 1, channel_type: 'Channel::Telegram', bot_token }) as unknown as InboxRecord;
    expect(verify(req(webhookSecret('123:ABC')), inbox('123:ABC'))).toBe(true);
    expect(verify(req(webhookSecret('123:ABD')), inbox('123:ABC'))).toBe(false);
    expect(verify(req(), inbox('123:ABC'))).toBe(false);
    // The secret of an empty token is anyone's to compute.
    expect(verify(req(webhookSecret('')), inbox(''))).toBe(false);
    expect(verify(req(webhookSecret('')), inbox(undefined))).toBe(false);
  });
});
