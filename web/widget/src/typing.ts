import { h } from './dom.ts';
import { api } from './page.ts';
import { state } from './state.ts';
import { t } from './words.ts';

// Both ways: the agent's typing shown under the log, and the visitor's told to the agent.

export const typingLine = h('p', { class: 'cw-typing', hidden: true });

export const typingTexts = () => (typingLine.textContent = t.typing);

export const showAgentTyping = (on: boolean) => (typingLine.hidden = !on);

let timer: ReturnType<typeof setTimeout> | undefined;
let sent = false;

export function stopTyping() {
  clearTimeout(timer);
  if (sent) {
    sent = false;
    api.typing(false).catch(() => undefined);
  }
}

export function visitorTyped() {
  if (state.conversationId === undefined) return;
  if (!sent) {
    sent = true;
    api.typing(true).catch(() => undefined);
  }
  clearTimeout(timer);
  timer = setTimeout(stopTyping, 3000);
}
