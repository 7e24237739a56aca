import { describe, expect, it } from 'vitest';
import { contentTemplateOf, contentVariables, findContentTemplate } from '#shared/channels/twilio/templates.ts';
import { isNumberName, numberName } from '#shared/domain/channels/phone.ts';

// Twilio content templates as Chatwoot stores and sends them (Content API resources → content_templates; a
// message's template_params → ContentSid + ContentVariables), and contact names from numbers.

const resource = (over: Record<string, unknown> = {}) => ({
  sid: 'HX1',
  account_sid: 'AC1',
  friendly_name: 'order_update',
  language: 'en',
  variables: { '1': 'name' },
  types: { 'twilio/text': { body: 'Hi {{1}}, your order shipped' } },
  url: 'https://content.twilio.com/v1/Content/HX1',
  date_created: '2024-05-01T10:00:00Z',
  date_updated: '2024-05-02T11:30:00Z',
  ...over,
});

describe('Twilio content templates', () => {
  it('stores a Content API resource in Chatwoot’s shape', () => {
    expect(contentTemplateOf(resource())).toEqual({
      content_sid: 'HX1',
      friendly_name: 'order_update',
      language: 'en',
      status: 'approved',
      template_type: 'text',
      media_type: null,
      variables: { '1': 'name' },
      category: 'utility',
      body: 'Hi {{1}}, your order shipped',
      types: { 'twilio/text': { body: 'Hi {{1}}, your order shipped' } },
      created_at: '2024-05-01T10:00:00.000Z',
      updated_at: '2024-05-02T11:30:00.000Z',
    });
  });

  it('derives the type, media type, category and body as Chatwoot does', () => {
    const media = contentTemplateOf(
      resource({ friendly_name: 'summer_promo', types: { 'twilio/media': { body: 'Look', media: ['https://x/y.png'], image: true } } }),
    );
    expect(media).toMatchObject({ template_type: 'media', media_type: 'image', category: 'marketing', body: 'Look' });
    const quick = contentTemplateOf(
      resource({ friendly_name: 'otp_code', types: { 'twilio/quick-reply': { body: 'Pick', actions: [] }, 'twilio/text': { body: 'x' } } }),
    );
    expect(quick).toMatchObject({ template_type: 'quick_reply', category: 'authentication', body: 'x' });
    expect(contentTemplateOf(resource({ types: { 'twilio/call-to-action': { body: 'Go' } } })).template_type).toBe('call_to_action');
    expect(contentTemplateOf(resource({ types: { 'twilio/card': { title: 't' } } }))).toMatchObject({ template_type: 'text', body: '' });
    expect(contentTemplateOf({ sid: 'HX9', date_created: 'never' })).toMatchObject({ variables: {}, types: {}, created_at: null });
  });

  it('finds the approved template by name and language (en by default)', () => {
    const templates = [contentTemplateOf(resource({ sid: 'HXpt', language: 'pt_BR' })), contentTemplateOf(resource({ sid: 'HXen' }))];
    expect(findContentTemplate(templates, { name: 'order_update' })?.content_sid).toBe('HXen');
    expect(findContentTemplate(templates, { name: 'order_update', language: 'pt_BR' })?.content_sid).toBe('HXpt');
    expect(findContentTemplate(templates, { name: 'other' })).toBeUndefined();
    expect(findContentTemplate(undefined, { name: 'order_update' })).toBeUndefined();
  });

  it('sends processed_params as strings, else the positional values of Cloud-style parameters', () => {
    const text = contentTemplateOf(resource());
    expect(contentVariables(text, { processed_params: { '1': 'John', '2': 42 } })).toEqual({ '1': 'John', '2': '42' });
    const parameters = [
      { type: 'header', parameters: [{ type: 'image', image: { link: 'https://x/h.png' } }] },
      {
        type: 'body',
        parameters: [
          { type: 'text', text: 'John' },
          { type: 'text', text: '#12' },
        ],
      },
    ];
    expect(contentVariables(text, { parameters })).toEqual({ '1': 'John', '2': '#12' });
    const media = contentTemplateOf(resource({ types: { 'twilio/media': { body: 'b', media: [] } } }));
    expect(contentVariables(media, { parameters })).toEqual({ '1': 'https://x/h.png', '2': 'John', '3': '#12' });
    const catalog = contentTemplateOf(resource({ types: { 'twilio/catalog': { body: 'c' } } }));
    expect(contentVariables(catalog, { processed_params: { '1': 'x' } })).toEqual({});
    expect(contentVariables(text, {})).toEqual({});
  });
});

describe('numbers as contact names', () => {
  it('formats a valid number internationally and leaves anything else as given', () => {
    expect(numberName('+14155552671')).toBe('+1 415 555 2671');
    expect(numberName('+5511988887777')).toBe('+55 11 98888 7777');
    expect(numberName('+15551234567')).toBe('+15551234567');
    expect(numberName('alpha')).toBe('alpha');
  });

  it('tells a name that is only the number, however punctuated', () => {
    expect(isNumberName('+14155552671', '+14155552671')).toBe(true);
    expect(isNumberName('+1 415 555 2671', '+14155552671')).toBe(true);
    expect(isNumberName('+1 415-555-2671', '+14155552671')).toBe(true);
    expect(isNumberName('Ana', '+14155552671')).toBe(false);
    expect(isNumberName('+1 415 555 2672', '+14155552671')).toBe(false);
  });
});
