import { h } from './dom.ts';
import { drawLog } from './message-log.ts';
import { api } from './page.ts';
import { afterFirstMessage, startingConversation, state, upsert, whenReady } from './state.ts';
import { stopTyping, visitorTyped } from './typing.ts';
import { t } from './words.ts';

// The visitor's own messages: text and files, shown at once as pending and replaced by the service's
// copy (matched by echo id), or marked failed.

const ICON_SEND =
  '<svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true"><path fill="currentColor" d="M3.4 20.4 21 12 3.4 3.6 3.4 10l12.6 2-12.6 2z"/></svg>';
const ICON_CLIP =
  '<svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true"><path fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" d="M21 11.5 12.5 20a5 5 0 0 1-7-7l8.5-8.5a3.3 3.3 0 0 1 4.7 4.7L10.2 17.7a1.7 1.7 0 0 1-2.4-2.4L15.5 7.6"/></svg>';

const input = h('textarea', { rows: '1', class: 'cw-input' });
const file = h('input', { type: 'file', hidden: true, 'aria-hidden': 'true', tabindex: '-1' });
const attach = h('button', { type: 'button', class: 'cw-icon' });
attach.innerHTML = ICON_CLIP;
const send = h('button', { type: 'submit', class: 'cw-send' });
send.innerHTML = ICON_SEND;
export const composer = h('form', { class: 'cw-composer' }, attach, file, input, send);

export function composerTexts() {
  input.setAttribute('aria-label', t.typeMessage);
  input.placeholder = t.typeMessage;
  send.setAttribute('aria-label', t.send);
  attach.setAttribute('aria-label', t.attach);
}

export function showComposer(shown: boolean, attachments: boolean) {
  composer.hidden = !shown;
  attach.hidden = !attachments;
}

export const focusComposer = () => input.focus();

const echoId = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

function showPending(content: string): string {
  const id = echoId();
  state.messages.set(`echo:${id}`, { echo_id: id, content, message_type: 0, created_at: Date.now() / 1000, pending: true });
  drawLog();
  return id;
}

function showFailed(id: string) {
  const m = state.messages.get(`echo:${id}`);
  if (m) state.messages.set(`echo:${id}`, { ...m, pending: false, failed: true });
  drawLog();
}

async function sendText(text: string) {
  const id = showPending(text);
  stopTyping();
  try {
    await whenReady;
    const first = state.conversationId === undefined;
    if (first) startingConversation();
    upsert([{ ...(await api.send(text, id)), echo_id: id }], false);
    if (first) await afterFirstMessage();
  } catch {
    showFailed(id);
  }
}

async function sendFile(f: File) {
  const id = showPending(f.name);
  try {
    await whenReady;
    upsert([{ ...(await api.sendFile(f, id)), echo_id: id }], false);
  } catch {
    showFailed(id);
  }
}

input.addEventListener('input', visitorTyped);
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
