import './chat.css';
import { WidgetApi, type Campaign } from './api.ts';
import { CHAT, localeOf } from './i18n.ts';
import { connectCable, type Cable, type CableEvent } from './cable.ts';
import { decode, encode, tokenKey, type ChannelConfig, type FromChat, type ToChat, type WidgetMessage } from './protocol.ts';
import { store } from './storage.ts';

// The chat page (`GET /widget?website_token=…`): inside the loader's iframe, or loaded directly by a
// mobile app's webview, which drives it with the same `chatwoot-widget:` messages. Plain DOM, no
// framework: the whole page must stay small.

type Msg = Partial<WidgetMessage> & { id?: number; echo_id?: string; pending?: boolean; failed?: boolean };

const params = new URLSearchParams(location.search);
const websiteToken = params.get('website_token') ?? '';
const embedded = window.parent !== window;
const POLL_MS = 3000;
/** The words of the widget's locale (`locale` parameter, `set-locale`). */
let t = CHAT[localeOf(params.get('locale'))];


const api = new WidgetApi(location.origin, websiteToken, params.get('cw_conversation') || store.get(tokenKey(websiteToken)), params.get('locale') ?? undefined);

const state = {
  config: undefined as ChannelConfig | undefined,
  pubsub: '',
  cableUrl: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/cable`,
  conversationId: undefined as number | undefined,
  messages: new Map<string, Msg>(),
  open: !embedded,
  unread: 0,
  cable: undefined as Cable | undefined,
  typingTimer: undefined as ReturnType<typeof setTimeout> | undefined,
  typingSent: false,
  pending: [] as ToChat[],
  ready: false,
  /** Attributes and labels asked for before there was a conversation to put them on. */
  later: [] as (() => Promise<unknown>)[],
  /** The inbox's campaigns, the host page's address, and the campaign whose message is shown (not yet run). */
  campaigns: [] as Campaign[],
  pageUrl: undefined as string | undefined,
  campaignTimers: [] as ReturnType<typeof setTimeout>[],
  campaign: undefined as Campaign | undefined,
};

/** Settled once the visitor is known (its auth token): nothing is sent for it before that. */
let markReady: () => void;
const whenReady = new Promise<void>((r) => (markReady = r));

const toParent = (m: FromChat) => embedded && window.parent.postMessage(encode(m), '*');

// ── DOM helpers ──────────────────────────────────────────────────────────────────────────────────────

function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string | boolean | undefined> = {}, ...kids: (Node | string | undefined)[]) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    el.setAttribute(k, v === true ? '' : v);
  }
  for (const k of kids) if (k !== undefined) el.append(k);
  return el;
}

const ICON_SEND = '<svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true"><path fill="currentColor" d="M3.4 20.4 21 12 3.4 3.6 3.4 10l12.6 2-12.6 2z"/></svg>';
const ICON_CLIP = '<svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true"><path fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" d="M21 11.5 12.5 20a5 5 0 0 1-7-7l8.5-8.5a3.3 3.3 0 0 1 4.7 4.7L10.2 17.7a1.7 1.7 0 0 1-2.4-2.4L15.5 7.6"/></svg>';

const root = h('div', { class: 'cw' });
const title = h('h1');
const tagline = h('p', { class: 'cw-tagline' });
const status = h('p', { class: 'cw-status' });
const closeBtn = embedded ? h('button', { type: 'button', class: 'cw-close' }, '×') : undefined;
const header = h('header', { class: 'cw-header' }, h('div', {}, title, tagline, status), closeBtn);
const log = h('div', { role: 'log', 'aria-live': 'polite', class: 'cw-log' });
const typing = h('p', { class: 'cw-typing', hidden: true });
const input = h('textarea', { rows: '1', class: 'cw-input' });
const file = h('input', { type: 'file', hidden: true, 'aria-hidden': 'true', tabindex: '-1' });
const attach = h('button', { type: 'button', class: 'cw-icon' });
attach.innerHTML = ICON_CLIP;
const send = h('button', { type: 'submit', class: 'cw-send' });
send.innerHTML = ICON_SEND;
const composer = h('form', { class: 'cw-composer' }, attach, file, input, send);
const prechat = h('form', { class: 'cw-prechat', hidden: true });
root.append(header, log, typing, prechat, composer);

/** Puts the locale's words on the page's fixed parts and draws the rest again. */
function applyTexts() {
  input.setAttribute('aria-label', t.typeMessage);
  input.placeholder = t.typeMessage;
  send.setAttribute('aria-label', t.send);
  attach.setAttribute('aria-label', t.attach);
  closeBtn?.setAttribute('aria-label', t.close);
  log.setAttribute('aria-label', t.messages);
  typing.textContent = t.typing;
  prechat.setAttribute('aria-label', t.beforeStart);
  if (state.config) {
    drawHeader(state.config);
    if (state.config.pre_chat_form_enabled) drawPrechat(state.config);
    drawLog();
  }
}
applyTexts();

// ── rendering ───────────────────────────────────────────────────────────────────────────────────────

const replyTime = (r: string | null | undefined) =>
  r === 'in_a_few_minutes' ? t.fewMinutes : r === 'in_a_few_hours' ? t.fewHours : r === 'in_a_day' ? t.aDay : t.online;

/** Whether the inbox is within its working hours now (always, when it keeps none). */
function online(c: ChannelConfig): boolean {
  if (!c.working_hours_enabled) return true;
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: c.timezone || 'UTC', weekday: 'short', hour: 'numeric', minute: 'numeric', hourCycle: 'h23' }).formatToParts(new Date());
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
  const day = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(get('weekday'));
  const minutes = Number(get('hour')) * 60 + Number(get('minute'));
  const wh = (c.working_hours as any[]).find((w) => w.day_of_week === day);
  if (!wh || wh.closed_all_day) return false;
  if (wh.open_all_day) return true;
  return minutes >= wh.open_hour * 60 + wh.open_minutes && minutes < wh.close_hour * 60 + wh.close_minutes;
}

function drawHeader(c: ChannelConfig) {
  document.documentElement.style.setProperty('--cw-color', c.widget_color || '#1f93ff');
  title.textContent = c.welcome_title || c.website_name;
  tagline.textContent = c.welcome_tagline ?? '';
  tagline.hidden = !c.welcome_tagline;
  const on = online(c);
  status.textContent = on ? replyTime(c.reply_time) : t.away;
  status.dataset.online = String(on);
}

const size = (n: number) => (n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(0)} KB` : `${(n / 1048576).toFixed(1)} MB`);

const keyOf = (m: Msg) => (m.id !== undefined ? `id:${m.id}` : `echo:${m.echo_id}`);
const isMine = (m: Msg) => m.message_type === 0;

function renderMessage(m: Msg): HTMLElement {
  const el = h('div', { class: `cw-msg ${isMine(m) ? 'cw-mine' : 'cw-theirs'}${m.pending ? ' cw-pending' : ''}${m.failed ? ' cw-failed' : ''}`, 'data-id': m.id !== undefined ? String(m.id) : undefined });
  const sender = (m.sender as { name?: string; available_name?: string } | undefined) ?? undefined;
  if (!isMine(m) && sender) el.append(h('span', { class: 'cw-sender' }, sender.available_name || sender.name || ''));
  if (m.content) el.append(h('p', { class: 'cw-text' }, m.content));
  for (const a of (m.attachments as any[] | undefined) ?? []) {
    if (a.file_type === 'image') el.append(h('a', { href: a.data_url, target: '_blank', rel: 'noopener' }, h('img', { src: a.thumb_url || a.data_url, alt: t.image, class: 'cw-img' })));
    else if (a.file_type === 'audio' || a.file_type === 'video') el.append(h(a.file_type, { src: a.data_url, controls: true, class: 'cw-img' }));
    else el.append(h('a', { href: a.data_url, target: '_blank', rel: 'noopener', class: 'cw-file' }, `📄 ${t.file}${a.extension ? ` (.${a.extension})` : ''}${a.file_size ? `, ${size(a.file_size)}` : ''}`));
  }
  const attrs = (m.content_attributes ?? {}) as Record<string, any>;
  if (m.content_type === 'input_select' && Array.isArray(attrs.items)) {
    const chosen = Array.isArray(attrs.submitted_values) ? attrs.submitted_values[0]?.value : undefined;
    const row = h('div', { class: 'cw-options' });
    for (const item of attrs.items) {
      const b = h('button', { type: 'button', 'aria-pressed': String(chosen === item.value), disabled: chosen !== undefined }, String(item.title));
      b.onclick = () => submit(m, { message: { submitted_values: [{ title: item.title, value: item.value }] } });
      row.append(b);
    }
    el.append(row);
  }
  if (m.content_type === 'input_csat') {
    const given = attrs.submitted_values?.csat_survey_response?.rating;
    const row = h('div', { class: 'cw-options', role: 'group', 'aria-label': t.rate });
    for (let r = 1; r <= 5; r++) {
      const b = h('button', { type: 'button', 'aria-label': t.rating.replace('{n}', String(r)), 'aria-pressed': String(given === r), disabled: given !== undefined }, '★'.repeat(r));
      b.onclick = () => submit(m, { message: { submitted_values: { csat_survey_response: { rating: r } } } });
      row.append(b);
    }
    el.append(row);
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

function drawLog() {
  const sorted = [...state.messages.values()].sort((a, b) => (a.created_at ?? Infinity) - (b.created_at ?? Infinity) || (a.id ?? Infinity) - (b.id ?? Infinity));
  const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
  log.replaceChildren(...[greeting(), ...sorted.map(renderMessage)].filter((x): x is HTMLElement => !!x));
  if (atBottom || sorted.at(-1)?.pending) log.scrollTop = log.scrollHeight;
}

function drawMode() {
  const c = state.config;
  const askFirst = !!c?.pre_chat_form_enabled && state.conversationId === undefined && !state.messages.size;
  prechat.hidden = !askFirst;
  composer.hidden = askFirst;
  attach.hidden = !(c?.enabled_features ?? []).includes('attachments');
}

/** The copy of a run campaign's message shown until the service's own message arrives (upsert). */
let ranCampaign: string | undefined;

/** Adds or replaces messages; agent messages new to this page count as unread while the widget is closed. */
function upsert(list: Msg[], announce: boolean) {
  let fresh = 0;
  for (const m of list) {
    if (m.conversation_id !== undefined) state.conversationId = m.conversation_id;
    const echo = m.echo_id !== undefined ? state.messages.get(`echo:${m.echo_id}`) : undefined;
    if (echo) state.messages.delete(`echo:${m.echo_id}`);
    // A run campaign's own message replaces the copy shown for it, whichever brings it first: the
    // socket's message.created or the history read after campaign.triggered.
    if (ranCampaign && m.message_type === 1 && m.content === state.messages.get(ranCampaign)?.content) {
      state.messages.delete(ranCampaign);
      ranCampaign = undefined;
    }
    const known = state.messages.has(keyOf(m));
    state.messages.set(keyOf(m), { ...state.messages.get(keyOf(m)), ...m, pending: false });
    if (!known && !echo && !isMine(m) && announce) {
      fresh++;
      toParent({ event: 'onMessage', data: m as WidgetMessage });
    }
  }
  if (fresh && !state.open) {
    state.unread += fresh;
    toParent({ event: 'setUnreadMode', unreadMessageCount: state.unread });
  }
  if (fresh && state.open) api.seen().catch(() => undefined);
  drawLog();
  drawMode();
}

// ── actions ─────────────────────────────────────────────────────────────────────────────────────────

const echoId = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

async function afterFirstMessage() {
  const todo = state.later.splice(0);
  for (const f of todo) await f().catch(() => undefined);
}

async function sendText(text: string) {
  const id = echoId();
  state.messages.set(`echo:${id}`, { echo_id: id, content: text, message_type: 0, created_at: Date.now() / 1000, pending: true });
  drawLog();
  stopTyping();
  try {
    await whenReady;
    const first = state.conversationId === undefined;
    upsert([{ ...(await api.send(text, id)), echo_id: id }], false);
    if (first) await afterFirstMessage();
  } catch {
    const m = state.messages.get(`echo:${id}`);
    if (m) state.messages.set(`echo:${id}`, { ...m, pending: false, failed: true });
    drawLog();
  }
}

async function sendFile(f: File) {
  const id = echoId();
  state.messages.set(`echo:${id}`, { echo_id: id, content: f.name, message_type: 0, created_at: Date.now() / 1000, pending: true });
  drawLog();
  try {
    await whenReady;
    upsert([{ ...(await api.sendFile(f, id)), echo_id: id }], false);
  } catch {
    const m = state.messages.get(`echo:${id}`);
    if (m) state.messages.set(`echo:${id}`, { ...m, pending: false, failed: true });
    drawLog();
  }
}

async function submit(m: Msg, body: unknown) {
  if (m.id === undefined) return;
  try {
    upsert([await api.submit(m.id, body)], false);
  } catch {
    /* the agent sees no answer; the visitor may try again */
  }
}

function stopTyping() {
  clearTimeout(state.typingTimer);
  if (state.typingSent) {
    state.typingSent = false;
    api.typing(false).catch(() => undefined);
  }
}

input.addEventListener('input', () => {
  if (state.conversationId === undefined) return;
  if (!state.typingSent) {
    state.typingSent = true;
    api.typing(true).catch(() => undefined);
  }
  clearTimeout(state.typingTimer);
  state.typingTimer = setTimeout(stopTyping, 3000);
});
input.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && !e.shiftKey) {
    e.preventDefault();
    composer.requestSubmit();
  }
});
composer.addEventListener('submit', (e) => {
  e.preventDefault();
  const text = input.value.trim();
  if (!text) return;
  input.value = '';
  void sendText(text);
});
attach.addEventListener('click', () => file.click());
file.addEventListener('change', () => {
  const f = file.files?.[0];
  file.value = '';
  if (f) void sendFile(f);
});
closeBtn?.addEventListener('click', () => toParent({ event: 'toggleBubble' }));

// ── the pre-chat form ───────────────────────────────────────────────────────────────────────────────

const CONTACT_FIELDS: Record<string, string> = { fullName: 'name', emailAddress: 'email', phoneNumber: 'phone_number' };

function drawPrechat(c: ChannelConfig) {
  const opts = (c.pre_chat_form_options ?? {}) as { pre_chat_message?: string; pre_chat_fields?: any[] };
  const fields = (opts.pre_chat_fields ?? []).filter((f) => f.enabled);
  const inputs = fields.map((f) => {
    const el = h('input', { name: f.name, type: f.type === 'email' ? 'email' : f.type === 'number' ? 'number' : 'text', required: !!f.required, placeholder: f.placeholder || undefined });
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

// ── live updates: the cable, and polling while it is not live ───────────────────────────────────────

async function refresh() {
  try {
    upsert(await api.messages(), true);
  } catch {
    /* try again on the next round */
  }
}

function onCable(e: CableEvent) {
  const d = e.data;
  if (e.event === 'message.created' || e.event === 'message.updated') {
    if (d.private || d.message_type === 2) return;
    upsert([{ ...d, conversation_id: d.conversation_id } as Msg], e.event === 'message.created');
  } else if (e.event === 'conversation.typing_on' || e.event === 'conversation.typing_off') {
    if (d.is_private || d.user?.type === 'contact') return;
    typing.hidden = e.event === 'conversation.typing_off';
  }
}

function connect() {
  state.cable?.close();
  state.cable = connectCable(state.cableUrl, state.pubsub, onCable, (live) => {
    // Shown for people and tests: whether replies arrive over the socket or by polling.
    root.dataset.live = String(live);
    if (live) void refresh();
  });
}

setInterval(() => {
  if (state.ready && !state.cable?.live) void refresh();
}, POLL_MS);

// ── campaigns: shown when the host page matches their rules, run when the visitor opens the widget ────────

const noSlash = (u: string) => u.replace(/\/+$/, '');
const chatting = () => state.conversationId !== undefined || [...state.messages.keys()].some((k) => !k.startsWith('campaign:'));

/** Chatwoot's widget: the page's address equals the campaign's url, within working hours when it asks. */
function scheduleCampaigns() {
  state.campaignTimers.splice(0).forEach(clearTimeout);
  const url = state.pageUrl;
  if (!url || !state.config || chatting() || state.campaign) return;
  for (const c of state.campaigns) {
    if (!c.trigger_rules.url || noSlash(c.trigger_rules.url) !== noSlash(url)) continue;
    if (c.trigger_only_during_business_hours && !online(state.config)) continue;
    const wait = Math.max(0, Number(c.trigger_rules.time_on_page) || 0) * 1000;
    state.campaignTimers.push(setTimeout(() => showCampaign(c), wait));
  }
}

function showCampaign(c: Campaign) {
  if (state.campaign || chatting()) return;
  state.campaignTimers.splice(0).forEach(clearTimeout);
  state.campaign = c;
  state.messages.set(`campaign:${c.id}`, { content: c.message, message_type: 1, created_at: Date.now() / 1000, sender: c.sender ? { name: c.sender.name } : undefined } as Msg);
  drawLog();
  if (state.open) void runCampaign();
  else {
    toParent({ event: 'campaign', message: c.message, senderName: c.sender?.name ?? null });
    state.unread += 1;
    toParent({ event: 'setUnreadMode', unreadMessageCount: state.unread });
  }
}

/** `campaign.triggered`: the service starts the conversation with the campaign's message; it replaces ours. */
async function runCampaign() {
  const c = state.campaign;
  if (!c) return;
  state.campaign = undefined;
  ranCampaign = `campaign:${c.id}`;
  toParent({ event: 'campaignDone' });
  try {
    await api.triggerCampaign(c.id);
    const history = await api.messages();
    // The history is the conversation as the service holds it: our copy goes now if no message took it.
    if (ranCampaign) state.messages.delete(ranCampaign);
    ranCampaign = undefined;
    upsert(history, false);
  } catch {
    /* the message stays shown; the visitor can still write */
  }
}

// ── commands from the host page or app ──────────────────────────────────────────────────────────────

function setScheme(mode: string) {
  const dark = mode === 'dark' || (mode === 'auto' && matchMedia('(prefers-color-scheme: dark)').matches);
  root.dataset.theme = dark ? 'dark' : 'light';
}

function saveToken(token: string) {
  api.authToken = token;
  store.set(tokenKey(websiteToken), token);
  toParent({ event: 'setAuthCookie', data: { widgetAuthToken: token } });
}

/** Runs now when there is a conversation, or once the first message has made one. */
const onConversation = (f: () => Promise<unknown>) => (state.conversationId !== undefined ? f() : (state.later.push(f), Promise.resolve()));

async function handle(m: ToChat) {
  switch (m.event) {
    case 'set-user': {
      const res = await api.setUser(m.identifier, m.user ?? {});
      if (res.widget_auth_token) {
        saveToken(res.widget_auth_token);
        state.pubsub = res.pubsub_token;
        state.messages.clear();
        state.conversationId = undefined;
        connect();
        await refresh();
      }
      return;
    }
    case 'set-custom-attributes':
      return api.updateContact({ custom_attributes: m.customAttributes });
    case 'delete-custom-attribute':
      return api.deleteContactAttribute(m.customAttribute);
    case 'set-conversation-custom-attributes':
      return onConversation(() => api.setConversationAttributes(m.customAttributes));
    case 'delete-conversation-custom-attribute':
      return onConversation(() => api.deleteConversationAttribute(m.customAttribute));
    case 'set-label':
      return onConversation(() => api.addLabel(m.label));
    case 'remove-label':
      return onConversation(() => api.removeLabel(m.label));
    case 'set-locale':
      t = CHAT[localeOf(m.locale)];
      document.documentElement.lang = m.locale;
      applyTexts();
      return;
    case 'change-url':
      state.pageUrl = m.referrerURL;
      scheduleCampaigns();
      return;
    case 'set-color-scheme':
      return setScheme(m.darkMode);
    case 'toggle-open':
      state.open = m.isOpen;
      if (m.isOpen && state.campaign) void runCampaign();
      if (m.isOpen) {
        state.unread = 0;
        toParent({ event: 'setUnreadMode', unreadMessageCount: 0 });
        if (state.conversationId !== undefined) api.seen().catch(() => undefined);
        input.focus();
      }
      return;
  }
}

window.addEventListener('message', (e) => {
  const m = decode<ToChat>(e.data);
  if (!m) return;
  if (!state.ready) state.pending.push(m);
  else handle(m).catch(() => undefined);
});

// ── start ───────────────────────────────────────────────────────────────────────────────────────────

async function start() {
  document.body.append(root);
  setScheme(params.get('dark_mode') ?? 'light');
  const session = await api.config();
  state.config = session.website_channel_config;
  state.pubsub = session.contact.pubsub_token;
  if (session.websocket_url) state.cableUrl = session.websocket_url;
  saveToken(session.auth_token);
  drawHeader(state.config);
  if (state.config.pre_chat_form_enabled) drawPrechat(state.config);
  const history = await api.messages();
  upsert(history, false);
  drawMode();
  connect();
  // Campaigns matter only to a visitor who is not chatting yet (Chatwoot runs a campaign once).
  if (!chatting()) state.campaigns = await api.campaigns().catch(() => []);
  state.ready = true;
  markReady();
  toParent({ event: 'loaded', config: { authToken: session.auth_token, channelConfig: state.config } });
  for (const m of state.pending.splice(0)) await handle(m).catch(() => undefined);
  scheduleCampaigns();
}

start().catch((err) => {
  root.replaceChildren(h('p', { class: 'cw-error', role: 'alert' }, t.error));
  document.body.append(root);
  console.error(err);
});
