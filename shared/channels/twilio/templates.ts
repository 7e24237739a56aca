import type { ProviderJson } from '../channel.ts';

// Twilio content templates (docs/channels.md#twilio), pure: a Content API resource in Chatwoot's stored shape (its
// Twilio::TemplateSyncService), the template a message names, and the `ContentVariables` it is sent with (its
// Twilio::TemplateProcessorService).

/** A template as the inbox keeps it in `content_templates.templates`. */
export interface ContentTemplate {
  content_sid: string;
  friendly_name: string;
  language: string;
  status: string;
  template_type: 'text' | 'media' | 'quick_reply' | 'call_to_action' | 'catalog';
  media_type: 'image' | 'video' | 'document' | null;
  variables: Record<string, unknown>;
  category: 'marketing' | 'authentication' | 'utility';
  body: string;
  types: Record<string, unknown>;
  created_at: string | null;
  updated_at: string | null;
}

/** A message's `additional_attributes.template_params` as Twilio reads them. */
export interface TwilioTemplateParams {
  name?: string;
  language?: string;
  processed_params?: unknown;
  /** WhatsApp Cloud's `components` form: `[{type: 'body' | 'header', parameters: [...]}]`. */
  parameters?: unknown;
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');
const obj = (v: unknown): Record<string, ProviderJson> => (v && typeof v === 'object' && !Array.isArray(v) ? v : {});

/** Twilio's dates (`2024-05-01T10:00:00Z`) as Rails writes a time into JSON (`2024-05-01T10:00:00.000Z`). */
function railsTime(v: unknown): string | null {
  const t = typeof v === 'string' ? Date.parse(v) : Number.NaN;
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

function templateType(types: Record<string, unknown>): ContentTemplate['template_type'] {
  if ('twilio/media' in types) return 'media';
  if ('twilio/quick-reply' in types) return 'quick_reply';
  if ('twilio/call-to-action' in types) return 'call_to_action';
  if ('twilio/catalog' in types) return 'catalog';
  return 'text';
}

/** Chatwoot's media type: the `twilio/media` content's `image`, `video` or `document` key, as written. */
function mediaType(types: Record<string, unknown>): ContentTemplate['media_type'] {
  if (templateType(types) !== 'media') return null;
  const media = obj(types['twilio/media']);
  return media.image ? 'image' : media.video ? 'video' : media.document ? 'document' : null;
}

/** Chatwoot guesses the category from the name (Twilio's Content API names none). */
const category = (name: string): ContentTemplate['category'] =>
  /marketing|promo|offer|sale/i.test(name) ? 'marketing' : /auth|otp|verify|code/i.test(name) ? 'authentication' : 'utility';

const BODY_TYPES = ['twilio/text', 'twilio/media', 'twilio/quick-reply', 'twilio/call-to-action', 'twilio/catalog'];

/** One Content API resource (`GET /v1/Content`'s `contents[]`) as Chatwoot stores it; every fetched template counts as approved. */
export function contentTemplateOf(c: ProviderJson): ContentTemplate {
  const types = obj(c?.types);
  const bodyType = BODY_TYPES.find((t) => t in types);
  return {
    content_sid: str(c?.sid),
    friendly_name: str(c?.friendly_name),
    language: str(c?.language),
    status: 'approved',
    template_type: templateType(types),
    media_type: mediaType(types),
    variables: obj(c?.variables),
    category: category(str(c?.friendly_name)),
    body: bodyType ? str(obj(types[bodyType]).body) : '',
    types,
    created_at: railsTime(c?.date_created),
    updated_at: railsTime(c?.date_updated),
  };
}

/** The approved template of the message's name and language (`en` when none is given), or undefined. */
export function findContentTemplate(templates: unknown, params: TwilioTemplateParams): ContentTemplate | undefined {
  const list = Array.isArray(templates) ? (templates as ContentTemplate[]) : [];
  return list.find((t) => t.friendly_name === params.name && t.language === (params.language || 'en') && t.status === 'approved');
}

const text = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** Cloud-style `parameters` components in order: a media header's link, then the body's texts, numbered from 1. */
function positional(parameters: unknown, withHeader: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  let n = 1;
  for (const component of Array.isArray(parameters) ? parameters : []) {
    const params = Array.isArray(component?.parameters) ? component.parameters : [];
    if (withHeader && component?.type === 'header' && params[0]) {
      const p = params[0];
      const link = p.image?.link ?? p.video?.link ?? p.document?.link;
      if (link) out[String(n++)] = text(link);
    } else if (component?.type === 'body') {
      for (const p of params) out[String(n++)] = text(p?.text);
    }
  }
  return out;
}

/**
 * The `ContentVariables` of a template message: `processed_params`' keys and values as strings, else the positional
 * values of a Cloud-style `parameters` list (media templates: the header's link first); a catalog's are none.
 */
export function contentVariables(template: ContentTemplate, params: TwilioTemplateParams): Record<string, string> {
  if (template.template_type === 'catalog') return {};
  const processed = obj(params.processed_params);
  if (Object.keys(processed).length) return Object.fromEntries(Object.entries(processed).map(([k, v]) => [k, text(v)]));
  return positional(params.parameters, template.template_type === 'media');
}
