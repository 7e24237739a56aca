import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { contactKeyOf, eventIdOf } from '#shared/channels/channel.ts';
import { plainText, whatsappMarkup } from '#shared/channels/markup.ts';
import { hubSignatureValid } from '#shared/channels/signatures.ts';
import { sessionBody, templateBody, templateComponents } from '#shared/channels/whatsapp/bodies.ts';
import { alternateWaId } from '#shared/channels/numbers.ts';
import { parseWhatsapp } from '#shared/channels/whatsapp/parse.ts';
import { advances } from '#shared/domain/channels/status.ts';

// The pure parts of the WhatsApp room and the channel rules: Meta's documented payloads read as Chatwoot reads
// them, the request bodies Chatwoot sends, the markup, the signature, Brazil/Argentina numbers, status order.

const cloud = (value: Record<string, unknown>) =>
  JSON.stringify({ object: 'whatsapp_business_account', entry: [{ id: 'WABA', changes: [{ value, field: 'messages' }] }] });
const meta = { messaging_product: 'whatsapp', metadata: { display_phone_number: '15550001111', phone_number_id: 'PN1' } };
const contacts = [{ profile: { name: 'Ana' }, wa_id: '5511988887777' }];

describe('WhatsApp payloads', () => {
  it('reads a text with its contact, a reply context, and every message of the payload', () => {
    const events = parseWhatsapp(
      cloud({
        ...meta,
        contacts,
        messages: [
          { from: '5511988887777', id: 'wamid.1', type: 'text', text: { body: 'Oi' }, context: { id: 'wamid.0' } },
          { from: '5511988887777', id: 'wamid.2', type: 'button', button: { text: 'Sim', payload: 'yes' } },
        ],
      }),
      'PN1',
    );
    expect(events).toEqual([
      {
        type: 'message',
        message: {
          providerId: 'wamid.1',
          contact: { sourceId: '5511988887777', name: 'Ana', nameNumber: '+5511988887777', phone_number: '+5511988887777' },
          contentAttributes: { in_reply_to_external_id: 'wamid.0' },
          content: 'Oi',
        },
        media: [],
      },
      expect.objectContaining({ type: 'message', message: expect.objectContaining({ providerId: 'wamid.2', content: 'Sim' }) }),
    ]);
    expect(contactKeyOf(events[0])).toBe('5511988887777');
    expect(eventIdOf(events[0])).toBe('m:wamid.1');
  });

  it('reads media with their caption, interactive replies, locations and shared contacts as Chatwoot stores them', () => {
    const [image, list, place, shared1, shared2] = parseWhatsapp(
      cloud({
        ...meta,
        contacts,
        messages: [
          { from: '5511988887777', id: 'i', type: 'image', image: { id: 'M1', mime_type: 'image/jpeg', caption: 'receipt' } },
          {
            from: '5511988887777',
            id: 'l',
            type: 'interactive',
            interactive: { type: 'list_reply', list_reply: { id: 'x', title: 'Option X' } },
          },
          {
            from: '5511988887777',
            id: 'p',
            type: 'location',
            location: { latitude: 1.5, longitude: 2.5, name: 'Home', address: 'Street 1' },
          },
          {
            from: '5511988887777',
            id: 'c',
            type: 'contacts',
            contacts: [
              { name: { formatted_name: 'Bo B', first_name: 'Bo', last_name: 'B' }, phones: [{ phone: '+1 555 0100' }] },
              { name: { formatted_name: 'No Phone' } },
            ],
          },
        ],
      }),
    );
    expect(image).toMatchObject({ message: { content: 'receipt' }, media: [{ id: 'M1', mime: 'image/jpeg', kind: 'image' }] });
    expect(list).toMatchObject({ message: { content: 'Option X' }, media: [] });
    expect(place).toMatchObject({
      message: {
        content: null,
        places: [
          { file_type: 'location', coordinates_lat: 1.5, coordinates_long: 2.5, fallback_title: 'Home, Street 1', external_url: null },
        ],
      },
    });
    expect(shared1).toMatchObject({
      message: {
        claimKey: 'c',
        content: 'Bo B',
        places: [{ file_type: 'contact', fallback_title: '+1 555 0100', meta: { firstName: 'Bo', lastName: 'B' } }],
      },
    });
    expect(shared2).toMatchObject({
      message: { providerId: 'c', claimKey: 'c:1', places: [{ fallback_title: 'Phone number is not available', meta: {} }] },
    });
  });

  it('skips reactions, unsupported messages and changes about another number; reads statuses with their error', () => {
    const events = parseWhatsapp(
      cloud({
        ...meta,
        contacts,
        messages: [
          { from: '5511988887777', id: 'r', type: 'reaction', reaction: { message_id: 'wamid.9', emoji: '👍' } },
          { from: '5511988887777', id: 'u', type: 'unsupported', errors: [{ code: 131051 }] },
        ],
        statuses: [
          { id: 'wamid.OUT', status: 'read', recipient_id: '5511988887777' },
          { id: 'wamid.OUT2', status: 'failed', errors: [{ code: 131047, title: 'Re-engagement message' }] },
          { id: 'wamid.OUT3', status: 'deleted' },
        ],
      }),
      'PN1',
    );
    expect(events).toEqual([
      { type: 'status', status: { providerId: 'wamid.OUT', status: 'read' } },
      { type: 'status', status: { providerId: 'wamid.OUT2', status: 'failed', error: '131047: Re-engagement message' } },
      { type: 'skipped', reason: 'status deleted' },
      { type: 'skipped', reason: 'reaction' },
      { type: 'skipped', reason: 'unsupported' },
    ]);
    expect(
      parseWhatsapp(cloud({ ...meta, contacts, messages: [{ from: '1', id: 'x', type: 'text', text: { body: 'x' } }] }), 'OTHER'),
    ).toEqual([{ type: 'skipped', reason: 'change for phone number id PN1' }]);
  });

  it('reads 360dialog’s bare payload; drops a message without a contact; throws on what is not JSON', () => {
    const events = parseWhatsapp(
      JSON.stringify({ contacts, messages: [{ from: '5511988887777', id: 'd', type: 'text', text: { body: 'x' } }] }),
    );
    expect(events[0]).toMatchObject({ type: 'message', message: { providerId: 'd' } });
    expect(parseWhatsapp(JSON.stringify({ messages: [{ from: '1', id: 'n', type: 'text', text: { body: 'x' } }] }))).toEqual([
      { type: 'skipped', reason: 'message without contact' },
    ]);
    expect(() => parseWhatsapp('<xml/>')).toThrow();
  });
});

describe('WhatsApp numbers', () => {
  it('knows Brazil’s number without the mobile 9 and Argentina’s with it', () => {
    expect(alternateWaId('551188887777')).toBe('5511988887777');
    expect(alternateWaId('5491123456789')).toBe('541123456789');
    expect(alternateWaId('5511988887777')).toBeUndefined();
    expect(alternateWaId('15550001111')).toBeUndefined();
  });
});

describe('WhatsApp bodies', () => {
  const text = { content_type: 'text' as const, content_attributes: {} };
  it('sends text with a null or reply context (Cloud) and without either on 360dialog', () => {
    expect(sessionBody({ provider: 'whatsapp_cloud', to: '1', text: 'hi', message: text })).toEqual({
      messaging_product: 'whatsapp',
      context: null,
      to: '1',
      text: { body: 'hi' },
      type: 'text',
    });
    expect(sessionBody({ provider: 'whatsapp_cloud', to: '1', text: 'hi', message: text, replyTo: 'wamid.0' }).context).toEqual({
      message_id: 'wamid.0',
    });
    expect(sessionBody({ provider: 'default', to: '1', text: 'hi', message: text })).toEqual({
      to: '1',
      text: { body: 'hi' },
      type: 'text',
    });
  });

  it('sends the first attachment by link, documents with their name, audio without a caption', () => {
    const record = (file_type: 'image' | 'audio' | 'file') => ({ file_type, filename: 'a.pdf' }) as never;
    expect(
      sessionBody({ provider: 'whatsapp_cloud', to: '1', text: 'c', message: text, attachment: { record: record('file'), link: 'L' } }),
    ).toMatchObject({
      type: 'document',
      document: { link: 'L', caption: 'c', filename: 'a.pdf' },
    });
    expect(
      sessionBody({ provider: 'whatsapp_cloud', to: '1', text: 'c', message: text, attachment: { record: record('audio'), link: 'L' } }),
    ).toMatchObject({
      type: 'audio',
      audio: { link: 'L' },
    });
  });

  it('sends input_select as buttons up to three items, a list beyond, action JSON-encoded', () => {
    const items = (n: number) => Array.from({ length: n }, (_, i) => ({ title: `T${i}`, value: `v${i}` }));
    const buttons = sessionBody({
      provider: 'whatsapp_cloud',
      to: '1',
      text: 'Pick',
      message: { content_type: 'input_select', content_attributes: { items: items(2) } },
    });
    expect(buttons).toEqual({
      messaging_product: 'whatsapp',
      to: '1',
      type: 'interactive',
      interactive: {
        type: 'button',
        body: { text: 'Pick' },
        action: JSON.stringify({
          buttons: [
            { type: 'reply', reply: { id: 'v0', title: 'T0' } },
            { type: 'reply', reply: { id: 'v1', title: 'T1' } },
          ],
        }),
      },
    });
    const list = sessionBody({
      provider: 'whatsapp_cloud',
      to: '1',
      text: 'Pick',
      message: { content_type: 'input_select', content_attributes: { items: items(4) } },
    });
    expect((list.interactive as { type: string }).type).toBe('list');
    expect(JSON.parse((list.interactive as { action: string }).action).button).toBe('Choose an item');
  });

  it('builds template components from processed_params for an approved template, none for an unknown one', () => {
    const approved = [{ name: 'order', language: 'en_US', status: 'APPROVED' }];
    const params = {
      name: 'order',
      language: 'en_US',
      processed_params: { body: { '1': ' John ', '2': '<#123>' }, buttons: [{ type: 'copy_code', parameter: 'CODE-1234567890123' }] },
    };
    expect(templateBody('whatsapp_cloud', '1', params, approved)).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '1',
      type: 'template',
      template: {
        name: 'order',
        language: { policy: 'deterministic', code: 'en_US' },
        components: [
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'John' },
              { type: 'text', text: '#123' },
            ],
          },
          { type: 'button', sub_type: 'copy_code', index: 0, parameters: [{ type: 'coupon_code', coupon_code: 'CODE-1234567890' }] },
        ],
      },
    });
    expect((templateBody('whatsapp_cloud', '1', params, []).template as { components: unknown[] }).components).toEqual([]);
    expect(templateComponents({ header: { media_url: 'https://x/y.png', media_type: 'image' } }, false)).toEqual([
      { type: 'header', parameters: [{ type: 'image', image: { link: 'https://x/y.png' } }] },
    ]);
    expect(templateComponents(['a'], true)).toEqual([{ type: 'body', parameters: [{ type: 'text', parameter_name: '1', text: 'a' }] }]);
    expect(templateBody('default', '1', { ...params, namespace: 'ns' }, approved)).toMatchObject({
      to: '1',
      type: 'template',
      template: { namespace: 'ns' },
    });
  });
});

describe('markup', () => {
  it('renders Markdown as WhatsApp markup and as plain text', () => {
    const md = 'Hi **John**, _see_ ~~old~~ `code` [site](https://x.y)\n\n- a\n- b\n\n> quoted';
    expect(whatsappMarkup(md)).toBe('Hi *John*, _see_ ~old~ `code` https://x.y\n- a\n- b\n> quoted');
    expect(plainText(md)).toBe('Hi John, see old code site https://x.y\n- a\n- b\nquoted');
    expect(plainText('1. one\n2. two')).toBe('1. one\n2. two');
    expect(whatsappMarkup(null)).toBe('');
  });
});

describe('signatures and statuses', () => {
  it('checks X-Hub-Signature-256 over the exact bytes; a missing or malformed one fails', () => {
    const body = Buffer.from('{"a":1}');
    const good = `sha256=${createHmac('sha256', 's').update(body).digest('hex')}`;
    expect(hubSignatureValid(body, good, 's')).toBe(true);
    expect(hubSignatureValid(Buffer.from('{"a": 1}'), good, 's')).toBe(false);
    expect(hubSignatureValid(body, undefined, 's')).toBe(false);
    expect(hubSignatureValid(body, 'sha256=zz', 's')).toBe(false);
  });

  it('moves statuses only forward; failed not after read, nothing after failed', () => {
    expect(advances('sent', 'delivered')).toBe(true);
    expect(advances('delivered', 'read')).toBe(true);
    expect(advances('read', 'delivered')).toBe(false);
    expect(advances('delivered', 'delivered')).toBe(false);
    expect(advances('sent', 'failed')).toBe(true);
    expect(advances('read', 'failed')).toBe(false);
    expect(advances('failed', 'read')).toBe(false);
  });
});
