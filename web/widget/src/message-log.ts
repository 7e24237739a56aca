import { h } from './dom.ts';
import { online } from './hours.ts';
import { api } from './page.ts';
import { isMine, state, upsert, type Msg } from './state.ts';
import { t } from './words.ts';

export const log = h('div', { role: 'log', 'aria-live': 'polite', class: 'cw-log' });

export const logTexts = () => log.setAttribute('aria-label', t.messages);

/** An attachment of a message, as the widget API shows it. */
interface Attachment {
  file_type: string;
  data_url: string;
  thumb_url?: string;
  extension?: string | null;
  file_size?: number;
}

type Option = { title: string; value: string };

/** What Chatwoot's interactive messages carry: options to pick, and the visitor's answers. */
interface ContentAttributes {
  items?: Option[];
  submitted_values?: Option[] | { csat_survey_response?: { rating?: number; feedback_message?: string } };
  submitted_email?: string;
}

const size = (n: number) => (n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(0)} KB` : `${(n / 1048576).toFixed(1)} MB`);

/** Feedback typed into a CSAT survey, by message id, until sent. */
const drafts = new Map<number, string>();

async function submit(m: Msg, body: unknown) {
  if (m.id === undefined) return;
  try {
    upsert([await api.submit(m.id, body)], false);
  } catch {
    /* the agent sees no answer; the visitor may try again */
  }
}

function renderMessage(m: Msg): HTMLElement {
  const el = h('div', {
    class: `cw-msg ${isMine(m) ? 'cw-mine' : 'cw-theirs'}${m.pending ? ' cw-pending' : ''}${m.failed ? ' cw-failed' : ''}`,
    'data-id': m.id !== undefined ? String(m.id) : undefined,
  });
  const sender = (m.sender as { name?: string; available_name?: string } | undefined) ?? undefined;
  if (!isMine(m) && sender) el.append(h('span', { class: 'cw-sender' }, sender.available_name || sender.name || ''));
  if (m.content) el.append(h('p', { class: 'cw-text' }, m.content));
  for (const a of (m.attachments as Attachment[] | undefined) ?? []) {
    if (a.file_type === 'image')
      el.append(
        h(
          'a',
          { href: a.data_url, target: '_blank', rel: 'noopener' },
          h('img', { src: a.thumb_url || a.data_url, alt: t.image, class: 'cw-img' }),
        ),
      );
    else if (a.file_type === 'audio' || a.file_type === 'video')
      el.append(h(a.file_type, { src: a.data_url, controls: true, class: 'cw-img' }));
    else
      el.append(
        h(
          'a',
          { href: a.data_url, target: '_blank', rel: 'noopener', class: 'cw-file' },
          `📄 ${t.file}${a.extension ? ` (.${a.extension})` : ''}${a.file_size ? `, ${size(a.file_size)}` : ''}`,
        ),
      );
  }
  const attrs = (m.content_attributes ?? {}) as ContentAttributes;
  if (m.content_type === 'input_select' && Array.isArray(attrs.items)) {
    const chosen = Array.isArray(attrs.submitted_values) ? attrs.submitted_values[0]?.value : undefined;
    const row = h('div', { class: 'cw-options' });
    for (const item of attrs.items) {
      const b = h(
        'button',
        { type: 'button', 'aria-pressed': String(chosen === item.value), disabled: chosen !== undefined },
        String(item.title),
      );
      b.onclick = () => submit(m, { message: { submitted_values: [{ title: item.title, value: item.value }] } });
      row.append(b);
    }
    el.append(row);
  }
  if (m.content_type === 'input_csat') {
    // As Chatwoot's widget: a rating is sent when chosen; then a line of feedback, sent with the rating, until given.
    const answer = Array.isArray(attrs.submitted_values) ? undefined : attrs.submitted_values?.csat_survey_response;
    const given = answer?.rating;
    const rate = (rating: number, feedback_message = '') =>
      submit(m, { message: { submitted_values: { csat_survey_response: { rating, feedback_message } } } });
    const row = h('div', { class: 'cw-options', role: 'group', 'aria-label': t.rate });
    for (let r = 1; r <= 5; r++) {
      const b = h(
        'button',
        {
          type: 'button',
          'aria-label': t.rating.replace('{n}', String(r)),
          'aria-pressed': String(given === r),
          disabled: given !== undefined,
        },
        '★'.repeat(r),
      );
      b.onclick = () => rate(r);
      row.append(b);
    }
    el.append(row);
    if (!answer?.feedback_message) {
      const field = h('input', { type: 'text', 'aria-label': t.feedback, placeholder: t.feedback, maxlength: '1000' });
      // The log is redrawn whenever a message changes: the visitor's draft outlives it.
      field.value = drafts.get(m.id ?? -1) ?? '';
      const send = h('button', { type: 'submit', disabled: given === undefined || !field.value.trim() }, t.submit);
      field.oninput = () => {
        drafts.set(m.id ?? -1, field.value);
        send.disabled = given === undefined || !field.value.trim();
      };
      const f = h('form', { class: 'cw-inline cw-csat-feedback' }, field, send);
      f.onsubmit = (e) => {
        e.preventDefault();
        if (given !== undefined && field.value.trim()) void rate(given, field.value.trim());
      };
      el.append(f);
    }
  }
  if (m.content_type === 'input_email' && !attrs.submitted_email) {
    const field = h('input', { type: 'email', 'aria-label': t.email, required: true });
    const f = h('form', { class: 'cw-inline' }, field, h('button', { type: 'submit' }, t.submit));
    f.onsubmit = (e) => {
      e.preventDefault();
      submit(m, { contact: { email: field.value }, message: { submitted_email: field.value } });
    };
    el.append(f);
  }
  return el;
}

function greeting(): HTMLElement | undefined {
  const c = state.config;
  const text = c && !online(c) ? c.out_of_office_message : c?.greeting_enabled ? c.greeting_message : undefined;
  return text ? h('div', { class: 'cw-msg cw-theirs cw-greeting' }, h('p', { class: 'cw-text' }, text)) : undefined;
}

export function drawLog() {
  const sorted = [...state.messages.values()].sort(
    (a, b) => (a.created_at ?? Infinity) - (b.created_at ?? Infinity) || (a.id ?? Infinity) - (b.id ?? Infinity),
  );
  const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
  log.replaceChildren(...[greeting(), ...sorted.map(renderMessage)].filter((x): x is HTMLElement => !!x));
  if (atBottom || sorted.at(-1)?.pending) log.scrollTop = log.scrollHeight;
}
