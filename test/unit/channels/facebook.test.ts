import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { contactKeyOf, eventIdOf } from '#shared/channels/channel.ts';
import { attachmentBody, textBody } from '#shared/channels/facebook/bodies.ts';
import { pagesOf, parseMessenger } from '#shared/channels/facebook/parse.ts';
import { appSecretProof } from '#shared/channels/graph.ts';
import { hubSha1SignatureValid } from '#shared/channels/signatures.ts';
import type { AttachmentRecord } from '#shared/model/messages.ts';

// The pure parts of the Messenger room: Meta's documented `page` webhooks read as Chatwoot reads them, the send
// bodies, the appsecret_proof, the legacy signature.

const PAGE = '1234567890';
const body = (messaging: unknown[], page = PAGE) => JSON.stringify({ object: 'page', entry: [{ id: page, time: 1, messaging }] });

describe('Messenger webhooks', () => {
  it('reads a text with its reply, an echo from another app, skips its own app’s echo and other pages', () => {
    const events = parseMessenger(
      body([
        { sender: { id: 'P1' }, recipient: { id: PAGE }, timestamp: 1, message: { mid: 'm1', text: 'hi', reply_to: { mid: 'm0' } } },
        {
          sender: { id: PAGE },
          recipient: { id: 'P1' },
          timestamp: 2,
          message: { is_echo: true, app_id: 99, mid: 'm2', text: 'page inbox' },
        },
        { sender: { id: PAGE }, recipient: { id: 'P1' }, timestamp: 3, message: { is_echo: true, app_id: 42, mid: 'm3', text: 'ours' } },
        { sender: { id: 'P1' }, recipient: { id: PAGE }, timestamp: 4, postback: { payload: 'x' } },
      ]),
      PAGE,
      '42',
    );
    expect(events[0]).toEqual({
      type: 'message',
      media: [],
      message: { providerId: 'm1', contact: { sourceId: 'P1' }, content: 'hi', contentAttributes: { in_reply_to_external_id: 'm0' } },
    });
    expect(events[1].type === 'message' && events[1].message).toMatchObject({ providerId: 'm2', echo: true, contact: { sourceId: 'P1' } });
    expect(events[2]).toEqual({ type: 'skipped', reason: 'echo of our own send' });
    expect(events[3]).toEqual({ type: 'skipped', reason: 'messaging postback' });
    expect(parseMessenger(body([{ sender: { id: 'P1' }, message: { mid: 'x', text: 'y' } }], '555'), PAGE)).toEqual([]);
    expect(pagesOf(body([], '555'))).toEqual(['555']);
  });

  it('reads attachments: media by URL, a location, a shared link; watermarks in seconds', () => {
    const [m] = parseMessenger(
      body([
        {
          sender: { id: 'P1' },
          recipient: { id: PAGE },
          message: {
            mid: 'm1',
            attachments: [
              { type: 'image', payload: { url: 'https://cdn.example/a.jpg' } },
              { type: 'location', title: 'Here', url: 'https://maps.example', payload: { coordinates: { lat: 1.5, long: 2.5 } } },
              { type: 'fallback', title: 'A page', url: 'https://x.example' },
              { type: 'template', payload: {} },
            ],
          },
        },
      ]),
      PAGE,
    );
    expect(m.type === 'message' && m.media).toEqual([{ url: 'https://cdn.example/a.jpg', kind: 'image' }]);
    expect(m.type === 'message' && m.message.places?.map((p) => [p.file_type, p.fallback_title, p.external_url])).toEqual([
      ['location', 'Here', 'https://maps.example'],
      ['fallback', 'A page', 'https://x.example'],
    ]);
    const [d, r] = parseMessenger(
      body([
        { sender: { id: 'P1' }, recipient: { id: PAGE }, delivery: { mids: ['m1'], watermark: 1458668856253 } },
        { sender: { id: 'P1' }, recipient: { id: PAGE }, read: { watermark: 1458668857999 } },
      ]),
      PAGE,
    );
    expect(d).toEqual({ type: 'watermark', watermark: { contactSourceId: 'P1', status: 'delivered', at: 1458668856 } });
    expect(r).toMatchObject({ watermark: { status: 'read', at: 1458668857 } });
    expect(contactKeyOf(d)).toBe('P1');
    expect(eventIdOf(d)).toBe('w:P1:delivered:1458668856');
  });
});

describe('Messenger sends', () => {
  it('tags every send ACCOUNT_UPDATE; quick replies answer with their title; attachments by URL', () => {
    expect(textBody('P1', 'hi', { content: 'hi', content_type: 'text', content_attributes: {} })).toEqual({
      recipient: { id: 'P1' },
      message: { text: 'hi' },
      messaging_type: 'MESSAGE_TAG',
      tag: 'ACCOUNT_UPDATE',
    });
    expect(
      textBody('P1', 'Pick', {
        content: 'Pick',
        content_type: 'input_select',
        content_attributes: { items: [{ title: 'Yes', value: 'y' }] },
      }).message,
    ).toEqual({ text: 'Pick', quick_replies: [{ content_type: 'text', title: 'Yes', payload: 'Yes' }] });
    expect(attachmentBody('P1', { file_type: 'file' } as AttachmentRecord, 'https://f/x.pdf').message).toEqual({
      attachment: { type: 'file', payload: { url: 'https://f/x.pdf' } },
    });
  });

  it('proves the token with the app secret; checks the legacy sha1 signature', () => {
    expect(appSecretProof('secret', 'token')).toBe(createHmac('sha256', 'secret').update('token').digest('hex'));
    const raw = Buffer.from('{"object":"page"}');
    const sig = `sha1=${createHmac('sha1', 's').update(raw).digest('hex')}`;
    expect(hubSha1SignatureValid(raw, sig, 's')).toBe(true);
    expect(hubSha1SignatureValid(raw, sig, 't')).toBe(false);
    expect(hubSha1SignatureValid(raw, undefined, 's')).toBe(false);
  });
});
