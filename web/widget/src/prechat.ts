import { h } from './dom.ts';
import { api } from './page.ts';
import type { ChannelConfig } from './protocol.ts';
import { afterFirstMessage, startingConversation, state, upsert } from './state.ts';
import { t } from './words.ts';

// The inbox's pre-chat form: the visitor's details and first message start the conversation.

export const prechat = h('form', { class: 'cw-prechat', hidden: true });

export const prechatTexts = () => prechat.setAttribute('aria-label', t.beforeStart);

export const showPrechat = (shown: boolean) => (prechat.hidden = !shown);

const CONTACT_FIELDS: Record<string, string> = { fullName: 'name', emailAddress: 'email', phoneNumber: 'phone_number' };

/** A field of Chatwoot's pre-chat form, as the inbox's settings keep it. */
interface PrechatField {
  name: string;
  type?: string;
  label?: string;
  placeholder?: string;
  required?: boolean;
  enabled?: boolean;
  field_type?: string;
}

export function drawPrechat(c: ChannelConfig) {
  const opts = (c.pre_chat_form_options ?? {}) as { pre_chat_message?: string; pre_chat_fields?: PrechatField[] };
  const fields = (opts.pre_chat_fields ?? []).filter((f) => f.enabled);
  const inputs = fields.map((f) => {
    const el = h('input', {
      name: f.name,
      type: f.type === 'email' ? 'email' : f.type === 'number' ? 'number' : 'text',
      required: !!f.required,
      placeholder: f.placeholder || undefined,
    });
    return { f, el, label: h('label', {}, f.label || f.name, el) };
  });
  const message = h('textarea', { name: 'message', required: true, 'aria-label': t.message, rows: '3' });
  prechat.replaceChildren(
    ...(opts.pre_chat_message ? [h('p', {}, opts.pre_chat_message)] : []),
    ...inputs.map((i) => i.label),
    h('label', {}, t.message, message),
    h('button', { type: 'submit', class: 'cw-start' }, t.start),
  );
  prechat.onsubmit = async (e) => {
    e.preventDefault();
    const contact: Record<string, unknown> = {};
    const custom: Record<string, unknown> = {};
    for (const { f, el } of inputs) {
      if (!el.value) continue;
      if (CONTACT_FIELDS[f.name]) contact[CONTACT_FIELDS[f.name]] = el.value;
      else custom[f.name] = el.value;
    }
    if (Object.keys(custom).length) contact.custom_attributes = custom;
    startingConversation();
    try {
      const created = await api.startConversation(contact, message.value);
      state.conversationId = created.id;
      upsert(created.messages, false);
      await afterFirstMessage();
    } catch {
      prechat.setAttribute('data-error', 'true');
    }
  };
}
