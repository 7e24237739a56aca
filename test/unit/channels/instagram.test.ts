import { describe, expect, it } from 'vitest';
import { eventIdOf } from '#shared/channels/channel.ts';
import { instagramErrorText, nestedForm } from '#shared/channels/graph.ts';
import { parseInstagram } from '#shared/channels/instagram/parse.ts';

// The pure parts of Instagram: Meta's documented `instagram` webhooks read as Chatwoot reads them, the nested
// form Chatwoot sends, the error text.

const IG = '17841400000000001';
const body = (...messaging: unknown[]) => JSON.stringify({ object: 'instagram', entry: [{ id: IG, time: 1, messaging }] });

describe('Instagram webhooks', () => {
  it('reads each item by its own kind: a text, an echo, an unsend, a read receipt, a reaction skipped', () => {
    const events = parseInstagram(
      body(
        { sender: { id: 'U1' }, recipient: { id: IG }, message: { mid: 'a', text: 'hi', reply_to: { mid: 'z' } } },
        { sender: { id: IG }, recipient: { id: 'U1' }, message: { mid: 'b', text: 'from the app', is_echo: true } },
        { sender: { id: 'U1' }, recipient: { id: IG }, message: { mid: 'a', is_deleted: true } },
        { sender: { id: 'U1' }, recipient: { id: IG }, read: { mid: 'b' } },
        { sender: { id: 'U1' }, recipient: { id: IG }, reaction: { mid: 'b', action: 'react', emoji: '❤️' } },
      ),
      IG,
    );
    expect(events[0]).toEqual({
      type: 'message',
      media: [],
      message: {
        providerId: 'a',
        contact: { sourceId: 'U1' },
        content: 'hi',
        contentAttributes: { in_reply_to_external_id: 'z' },
        conversationAttributes: { type: 'instagram_direct_message' },
      },
    });
    expect(events[1].type === 'message' && events[1].message).toMatchObject({ echo: true, contact: { sourceId: 'U1' } });
    expect(events[2]).toEqual({ type: 'deleted', deleted: { claimKey: 'a', contactSourceId: 'U1' } });
    expect(eventIdOf(events[2])).toBe('d:a');
    expect(events[3]).toEqual({ type: 'status', status: { providerId: 'b', status: 'read', through: true } });
    expect(events[4]).toEqual({ type: 'skipped', reason: 'messaging reaction' });
    expect(parseInstagram(JSON.stringify({ object: 'page', entry: [] }), IG)[0].type).toBe('skipped');
  });

  it('marks only a page inbox’s conversations as Instagram ones (an Instagram-login inbox holds nothing else)', () => {
    const payload = body({ sender: { id: 'U1' }, recipient: { id: IG }, message: { mid: 'm', text: 'hi' } });
    const [viaPage] = parseInstagram(payload, IG);
    const [login] = parseInstagram(payload, IG, false);
    expect(viaPage.type === 'message' && viaPage.message.conversationAttributes).toEqual({ type: 'instagram_direct_message' });
    expect(login.type === 'message' && login.message.conversationAttributes).toBeUndefined();
  });

  it('a story reply keeps its story; shares, posts, reels and story mentions', () => {
    const [story, shared] = parseInstagram(
      body(
        {
          sender: { id: 'U1' },
          recipient: { id: IG },
          message: { mid: 's', text: 'wow', reply_to: { story: { id: 'S1', url: 'https://cdn/s' } } },
        },
        {
          sender: { id: 'U1' },
          recipient: { id: IG },
          message: {
            mid: 'p',
            attachments: [
              { type: 'ig_post', payload: { url: 'https://ig/p/1', title: 'T' } },
              { type: 'ig_reel', payload: { url: 'https://cdn/r.mp4' } },
              { type: 'story_mention', payload: { url: 'https://cdn/m.jpg' } },
            ],
          },
        },
      ),
      IG,
    );
    expect(story.type === 'message' && story.message.contentAttributes).toEqual({
      story_id: 'S1',
      story_url: 'https://cdn/s',
      story_sender: IG,
    });
    expect(shared.type === 'message' && shared.message.content).toBe('Shared post');
    expect(shared.type === 'message' && shared.media).toEqual([
      { url: 'https://cdn/r.mp4', kind: 'video' },
      { url: 'https://cdn/m.jpg', kind: 'image' },
    ]);
  });
});

describe('Instagram sends', () => {
  it('form-encodes nested fields as Rails does; words errors "<code> - <message>"', () => {
    expect(nestedForm({ recipient: { id: '1' }, message: { attachment: { type: 'image', payload: { url: 'https://f' } } } })).toEqual([
      ['recipient[id]', '1'],
      ['message[attachment][type]', 'image'],
      ['message[attachment][payload][url]', 'https://f'],
    ]);
    expect(instagramErrorText({ code: 190, message: 'Invalid OAuth access token' })).toBe('190 - Invalid OAuth access token');
  });
});
