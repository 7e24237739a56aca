import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseBandwidth } from '#shared/channels/bandwidth/parse.ts';
import { twilioSignatureValid } from '#shared/channels/signatures.ts';
import { parseTwilio } from '#shared/channels/twilio/parse.ts';

// Twilio's form webhooks and Bandwidth's callback arrays as Chatwoot reads them, and Twilio's signature.

describe('Twilio webhooks', () => {
  it('reads an SMS with its sender’s location attributes and media', () => {
    const [e] = parseTwilio(
      'SmsSid=SM1&MessageSid=SM1&AccountSid=AC1&From=%2B15551234567&To=%2B15550001111&Body=Hi%00there&NumMedia=1&MediaUrl0=https%3A%2F%2Fapi.twilio.com%2Fm%2FME1&MediaContentType0=image%2Fjpeg&FromZip=94105&FromState=CA&FromCountry=US',
    );
    expect(e).toEqual({
      type: 'message',
      message: {
        providerId: 'SM1',
        contact: {
          sourceId: '+15551234567',
          nameNumber: '+15551234567',
          phone_number: '+15551234567',
          additional_attributes: { from_zip_code: '94105', from_country: 'US', from_state: 'CA' },
        },
        content: 'Hithere',
        conversationAttributes: { from_zip_code: '94105', from_country: 'US', from_state: 'CA' },
      },
      media: [{ url: 'https://api.twilio.com/m/ME1', mime: 'image/jpeg' }],
    });
  });

  it('reads a WhatsApp sender with its profile name and Brazil alias, a location', () => {
    const [e] = parseTwilio(
      'SmsSid=SM2&From=whatsapp%3A%2B551188887777&To=whatsapp%3A%2B15550001111&ProfileName=Ana&MessageType=location&Latitude=-23.5&Longitude=-46.6',
    );
    expect(e).toMatchObject({
      message: {
        contact: { sourceId: 'whatsapp:+551188887777', aliases: ['whatsapp:+5511988887777'], name: 'Ana', phone_number: '+551188887777' },
        content: null,
        places: [{ file_type: 'location', coordinates_lat: -23.5, coordinates_long: -46.6 }],
      },
    });
  });

  it('reads statuses with Chatwoot’s error texts and ignores the others', () => {
    expect(parseTwilio('MessageSid=SM3&MessageStatus=delivered')).toEqual([
      { type: 'status', status: { providerId: 'SM3', status: 'delivered' } },
    ]);
    expect(parseTwilio('MessageSid=SM3&MessageStatus=undelivered&ErrorCode=30003&ErrorMessage=Unreachable')).toEqual([
      { type: 'status', status: { providerId: 'SM3', status: 'failed', error: '30003 - Unreachable' } },
    ]);
    expect(parseTwilio('MessageSid=SM3&MessageStatus=failed&ErrorCode=30008')[0]).toMatchObject({ status: { error: 'Error code: 30008' } });
    expect(parseTwilio('MessageSid=SM3&MessageStatus=queued')).toEqual([{ type: 'skipped', reason: 'status queued' }]);
  });

  it('checks X-Twilio-Signature over the URL and the sorted parameters', () => {
    const params: [string, string][] = [
      ['To', '+1'],
      ['Body', 'x'],
    ];
    const good = createHmac('sha1', 'tok').update('https://h/twilio/callbackBodyxTo+1').digest('base64');
    expect(twilioSignatureValid('https://h/twilio/callback', params, good, 'tok')).toBe(true);
    expect(twilioSignatureValid('https://h/twilio/callback', params, good, 'other')).toBe(false);
    expect(twilioSignatureValid('https://h/twilio/callback', params, undefined, 'tok')).toBe(false);
  });

  it('takes no signature when the inbox has no auth token (an empty key signs for anyone)', () => {
    const params: [string, string][] = [['Body', 'x']];
    const byEmptyKey = createHmac('sha1', '').update('https://h/twilio/callbackBodyx').digest('base64');
    expect(twilioSignatureValid('https://h/twilio/callback', params, byEmptyKey, '')).toBe(false);
  });
});

describe('Bandwidth callbacks', () => {
  it('reads every element: a received MMS without its SMIL part, a delivery receipt, a failure with its code', () => {
    const events = parseBandwidth(
      JSON.stringify([
        {
          type: 'message-received',
          to: '+15550001111',
          message: { id: 'm1', from: '+15557654321', text: 'hi', media: ['https://x/0/a.jpg', 'https://x/1/b.smil'] },
        },
        { type: 'message-delivered', to: '+15557654321', message: { id: 'o1' } },
        { type: 'message-failed', errorCode: 4405, description: 'rejected', message: { id: 'o2' } },
        { type: 'message-sending', message: { id: 'o3' } },
      ]),
    );
    expect(events).toEqual([
      {
        type: 'message',
        message: {
          providerId: 'm1',
          contact: { sourceId: '+15557654321', nameNumber: '+15557654321', phone_number: '+15557654321' },
          content: 'hi',
        },
        media: [{ url: 'https://x/0/a.jpg' }],
      },
      { type: 'status', status: { providerId: 'o1', status: 'delivered' } },
      { type: 'status', status: { providerId: 'o2', status: 'failed', error: '4405 - rejected' } },
      { type: 'skipped', reason: 'message-sending' },
    ]);
  });
});
