import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eventIdOf } from '#shared/channels/channel.ts';
import { lineError, lineMessages } from '#shared/channels/line/bodies.ts';
import { parseLine } from '#shared/channels/line/parse.ts';
import { lineSignatureValid } from '#shared/channels/signatures.ts';
import type { AttachmentRecord } from '#shared/model/messages.ts';

// The pure parts of the LINE room: LINE's documented webhook events read as Chatwoot reads them, the push bodies,
// the error text, the signature.

const event = (message: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'message',
  message,
  webhookEventId: '01HEVENT',
  deliveryContext: { isRedelivery: false },
  timestamp: 1,
  source: { type: 'user', userId: 'U1' },
  replyToken: 'r',
  mode: 'active',
  ...extra,
});
const body = (...events: unknown[]) => JSON.stringify({ destination: 'Ux', events });

describe('LINE webhooks', () => {
  it('reads every event: a text, a sticker, an image, a location; skips follows and unknown types', () => {
    const out = parseLine(
      body(
        event({ type: 'text', id: '1', text: 'hi' }),
        event({ type: 'sticker', id: '2', packageId: '446', stickerId: '1988' }, { webhookEventId: 'E2' }),
        event({ type: 'image', id: '3', contentProvider: { type: 'line' } }, { webhookEventId: 'E3' }),
        event({ type: 'file', id: '4', fileName: 'a.pdf', fileSize: 10 }, { webhookEventId: 'E4' }),
        event({ type: 'location', id: '5', title: 'T', address: 'A', latitude: 1, longitude: 2 }, { webhookEventId: 'E5' }),
        { type: 'follow', source: { type: 'user', userId: 'U1' } },
        event({ type: 'poll', id: '6' }),
      ),
    );
    expect(out.map((e) => e.type)).toEqual(['message', 'message', 'message', 'message', 'message', 'skipped', 'skipped']);
    expect(out[0]).toEqual({
      type: 'message',
      media: [],
      message: {
        providerId: '1',
        claimKey: '01HEVENT',
        content: 'hi',
        contact: { sourceId: 'U1', additional_attributes: { social_line_user_id: 'U1' } },
      },
    });
    expect(eventIdOf(out[0])).toBe('m:01HEVENT');
    expect(out[1].type === 'message' && out[1].message).toMatchObject({
      contentType: 'sticker',
      content: expect.stringContaining('/sticker/1988/'),
    });
    expect(out[2].type === 'message' && out[2].media).toEqual([{ id: '3', kind: 'image', filename: undefined }]);
    expect(out[3].type === 'message' && out[3].media).toEqual([{ id: '4', kind: 'file', filename: 'a.pdf' }]);
    expect(out[4].type === 'message' && out[4].message.places?.[0]).toMatchObject({ file_type: 'location', fallback_title: 'T, A' });
    expect(parseLine(body())).toEqual([]);
  });

  it('checks X-Line-Signature over the exact bytes', () => {
    const raw = Buffer.from(body(event({ type: 'text', id: '1', text: 'hi' })));
    const good = createHmac('sha256', 'secret').update(raw).digest('base64');
    expect(lineSignatureValid(raw, good, 'secret')).toBe(true);
    expect(lineSignatureValid(raw, good, 'other')).toBe(false);
    expect(lineSignatureValid(raw, undefined, 'secret')).toBe(false);
    expect(lineSignatureValid(raw, good, '')).toBe(false);
  });
});

describe('LINE pushes', () => {
  const a = (file_type: string) => ({ record: { file_type } as AttachmentRecord, link: `https://f/${file_type}` });
  it('text then images and videos only', () => {
    expect(lineMessages('hi', { content_type: 'text', content_attributes: {} }, [a('image'), a('file'), a('video'), a('audio')])).toEqual([
      { type: 'text', text: 'hi' },
      { type: 'image', originalContentUrl: 'https://f/image', previewImageUrl: 'https://f/image' },
      { type: 'video', originalContentUrl: 'https://f/video', previewImageUrl: 'https://f/video' },
    ]);
    expect(lineMessages('', { content_type: 'text', content_attributes: {} }, [a('image')])).toHaveLength(1);
  });
  it('words LINE’s errors as Chatwoot does', () => {
    expect(lineError({ message: 'Invalid reply token' })).toBe('Invalid reply token');
    expect(
      lineError({
        message: 'The request body has 2 error(s)',
        details: [
          { message: 'May not be empty', property: 'messages[0].text' },
          { message: 'Must be one of the following values: [text, image]', property: 'messages[1].type' },
        ],
      }),
    ).toBe(
      'The request body has 2 error(s), messages[0].text: May not be empty, messages[1].type: Must be one of the following values: [text, image]',
    );
  });
});
