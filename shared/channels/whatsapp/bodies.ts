import type { AttachmentRecord, MessageRecord } from '#shared/model/messages.ts';

// The request bodies Chatwoot sends to WhatsApp (docs/channels.md#whatsapp): a session message (text, the first
// attachment by link, an interactive `input_select`) and a template message, for Meta's Cloud API; 360dialog's
// differ only by what they leave out (no `messaging_product`, no `context`) and the template's `namespace`.

export type Provider = 'whatsapp_cloud' | 'default';

type Json = Record<string, unknown>;

export interface SessionInput {
  provider: Provider;
  to: string;
  /** The message's text rendered as WhatsApp markup. */
  text: string;
  message: Pick<MessageRecord, 'content_type' | 'content_attributes'>;
  /** The first attachment, with a link the provider can fetch. */
  attachment?: { record: AttachmentRecord; link: string };
  /** The provider id of the message replied to. */
  replyTo?: string;
}

const MEDIA_TYPES = new Set(['image', 'audio', 'video']);

export function sessionBody(input: SessionInput): Json {
  const cloud = input.provider === 'whatsapp_cloud';
  const head = cloud ? { messaging_product: 'whatsapp' } : {};
  const context = cloud ? { context: input.replyTo ? { message_id: input.replyTo } : null } : {};
  if (input.attachment) {
    const a = input.attachment.record;
    const type = MEDIA_TYPES.has(a.file_type) ? a.file_type : 'document';
    const content: Json = { link: input.attachment.link };
    if (type !== 'audio') content.caption = input.text;
    if (type === 'document') content.filename = a.filename;
    return { ...head, ...context, to: input.to, type, [type]: content };
  }
  if (input.message.content_type === 'input_select') {
    const items = (Array.isArray(input.message.content_attributes.items) ? input.message.content_attributes.items : []) as {
      title?: unknown;
      value?: unknown;
    }[];
    // Chatwoot sends `action` as a JSON-encoded string, which the API accepts.
    const action =
      items.length <= 3
        ? JSON.stringify({ buttons: items.map((i) => ({ type: 'reply', reply: { id: i.value, title: i.title } })) })
        : JSON.stringify({ button: 'Choose an item', sections: [{ rows: items.map((i) => ({ id: i.value, title: i.title })) }] });
    return {
      ...head,
      to: input.to,
      interactive: { type: items.length <= 3 ? 'button' : 'list', body: { text: input.text }, action },
      type: 'interactive',
    };
  }
  return { ...head, ...context, to: input.to, text: { body: input.text }, type: 'text' };
}

export interface TemplateParams {
  name: string;
  category?: string;
  language?: string;
  namespace?: string;
  processed_params?: unknown;
}

/** A stored template (the inbox's `message_templates`, as Meta lists them). */
export interface StoredTemplate {
  name?: string;
  language?: string;
  status?: string;
  namespace?: string;
  parameter_format?: string;
}

/** Chatwoot's value cleaning: trimmed, `<>"'` removed, at most 1000 characters. */
const clean = (v: unknown) =>
  String(v ?? '')
    .trim()
    .replace(/[<>"']/g, '')
    .slice(0, 1000);

const isHttpUrl = (u: unknown) => typeof u === 'string' && u.length <= 2000 && /^https?:\/\//i.test(u);

/** Chatwoot's `processed_params` → the Cloud API's components (body, header, buttons). */
export function templateComponents(processed: unknown, named: boolean): Json[] {
  if (processed === undefined || processed === null) return [];
  // Legacy: an array or a flat map of values is the body.
  const p = (
    Array.isArray(processed)
      ? { body: Object.fromEntries(processed.map((v, i) => [String(i + 1), v])) }
      : typeof processed === 'object' && !['body', 'header', 'footer', 'buttons'].some((k) => k in (processed as Json))
        ? { body: processed }
        : processed
  ) as Json;
  const out: Json[] = [];
  const text = (k: string, v: unknown) => (named ? { type: 'text', parameter_name: k, text: clean(v) } : { type: 'text', text: clean(v) });
  if (p.body && typeof p.body === 'object') {
    out.push({ type: 'body', parameters: Object.entries(p.body as Json).map(([k, v]) => text(k, v)) });
  }
  if (p.header && typeof p.header === 'object') {
    const h = p.header as Json;
    const mediaType = h.media_type as string | undefined;
    if (mediaType && ['image', 'video', 'document'].includes(mediaType) && isHttpUrl(h.media_url)) {
      const media: Json = { link: h.media_url };
      if (mediaType === 'document' && h.media_name) media.filename = h.media_name;
      out.push({ type: 'header', parameters: [{ type: mediaType, [mediaType]: media }] });
    } else {
      const params = Object.entries(h)
        .filter(([k]) => !['media_url', 'media_type', 'media_name'].includes(k))
        .map(([k, v]) => text(k, v));
      if (params.length) out.push({ type: 'header', parameters: params });
    }
  }
  if (Array.isArray(p.buttons)) {
    p.buttons.forEach((b: Json, index: number) => {
      if (!b || typeof b !== 'object') return;
      const subType = typeof b.type === 'string' ? b.type : 'url';
      const parameters =
        subType === 'copy_code'
          ? [{ type: 'coupon_code', coupon_code: clean(b.parameter).slice(0, 15) }]
          : [{ type: 'text', text: clean(b.parameter) }];
      out.push({ type: 'button', sub_type: subType, index, parameters });
    });
  }
  return out;
}

export function templateBody(provider: Provider, to: string, params: TemplateParams, templates: StoredTemplate[]): Json {
  const language = params.language ?? 'en_US';
  const found = templates.find(
    (t) => t.name === params.name && (t.language ?? '').toLowerCase() === language.toLowerCase() && t.status?.toUpperCase() === 'APPROVED',
  );
  // A template not in the synced list is still sent, with no components (as Chatwoot does).
  const components = found ? templateComponents(params.processed_params, found.parameter_format === 'NAMED') : [];
  const template: Json = { name: params.name, language: { policy: 'deterministic', code: language }, components };
  if (provider === 'default') {
    return { to, type: 'template', template: { namespace: params.namespace ?? found?.namespace, ...template } };
  }
  return { messaging_product: 'whatsapp', recipient_type: 'individual', to, type: 'template', template };
}
