import { h } from './dom.ts';
import { api, params } from './page.ts';
import { state } from './state.ts';
import { t } from './words.ts';

// Both ways: the agent's typing shown under the log, and the visitor's told to the agent.

export const typingLine = h('p', { class: 'cw-typing', hidden: true });

export const typingTexts = () => (typingLine.textContent = t.typing);

/**
 * How long "Agent is typing…" stays without a typing-off: 30 s, as Chatwoot's widget. `agent_typing_ms`
 * in the page's address sets it (tests use it so as not to wait half a minute).
 */
const AGENT_TYPING_MS = Number(params.get('agent_typing_ms')) || 30_000;
let agentTimer: ReturnType<typeof setTimeout> | undefined;

export function showAgentTyping(on: boolean) {
  clearTimeout(agentTimer);
  typingLine.hidden = !on;
  if (on) agentTimer = setTimeout(() => (typingLine.hidden = true), AGENT_TYPING_MS);
}

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
