import { api, embedded, raise, toParent } from './page.ts';
import type { ChannelConfig, WidgetMessage } from './protocol.ts';

// What the page knows: the inbox's settings, the conversation and its messages, and whether the visitor
// has the widget open. Messages are keyed by id, or by echo id while the service has not answered yet.

export type Msg = Partial<WidgetMessage> & { id?: number; echo_id?: string; pending?: boolean; failed?: boolean };

export const state = {
  config: undefined as ChannelConfig | undefined,
  conversationId: undefined as number | undefined,
  messages: new Map<string, Msg>(),
  open: !embedded,
  unread: 0,
  ready: false,
};

const keyOf = (m: Msg) => (m.id !== undefined ? `id:${m.id}` : `echo:${m.echo_id}`);
export const isMine = (m: Msg) => m.message_type === 0;

/** Settled once the visitor is known (its auth token): nothing is sent for it before that. */
let resolveReady: () => void;
export const whenReady = new Promise<void>((r) => (resolveReady = r));
export function markReady() {
  state.ready = true;
  resolveReady();
}

export function addUnread(n: number) {
  state.unread += n;
  toParent({ event: 'setUnreadMode', unreadMessageCount: state.unread });
}

export function clearUnread() {
  state.unread = 0;
  toParent({ event: 'setUnreadMode', unreadMessageCount: 0 });
}

/** Whether the host page was told that the visitor started its conversation. */
let started = false;

/** The visitor became another contact: its conversation is not this one. */
export function forgetConversation() {
  state.messages.clear();
  state.conversationId = undefined;
  started = false;
}

/** Attributes and labels asked for before there was a conversation to put them on. */
const later: (() => Promise<unknown>)[] = [];

/** Runs now when there is a conversation, or once the first message has made one. */
export const onConversation = (f: () => Promise<unknown>) =>
  state.conversationId !== undefined ? f() : Promise.resolve(void later.push(f));

export async function afterFirstMessage() {
  const todo = later.splice(0);
  for (const f of todo) await f().catch(() => undefined);
}

/** The copy of a message shown before the service has written it (a run campaign's), by its key. */
let standIn: string | undefined;
export const setStandIn = (key: string) => (standIn = key);
export function dropStandIn() {
  if (standIn) state.messages.delete(standIn);
  standIn = undefined;
}

/** Ids of the messages the host page has heard of: each once, whether the socket or polling brought it. */
const told = new Set<number>();

/** Chatwoot's `chatwoot:on-message` on the host page, with the message as its detail. */
export function tell(m: Msg) {
  if (m.id === undefined || told.has(m.id)) return;
  told.add(m.id);
  raise('chatwoot:on-message', m);
}

/** The visitor starts its first conversation: Chatwoot's `chatwoot:on-start-conversation` (once). */
export function startingConversation() {
  if (started) return;
  started = true;
  raise('chatwoot:on-start-conversation', { hasConversation: false });
}

let redraw = () => {};
export const onUpsert = (f: () => void) => (redraw = f);

/**
 * Adds or replaces messages. With `announce`, messages new to this page are told to the host page, and
 * the agent's count as unread while the widget is closed.
 */
export function upsert(list: Msg[], announce: boolean) {
  let fresh = 0;
  for (const m of list) {
    if (m.conversation_id !== undefined) state.conversationId = m.conversation_id;
    const echo = m.echo_id !== undefined ? state.messages.get(`echo:${m.echo_id}`) : undefined;
    if (echo) state.messages.delete(`echo:${m.echo_id}`);
    // A run campaign's own message replaces the copy shown for it, whichever brings it first: the
    // socket's message.created or the history read after campaign.triggered.
    if (standIn && m.message_type === 1 && m.content === state.messages.get(standIn)?.content) {
      state.messages.delete(standIn);
      standIn = undefined;
    }
    const known = state.messages.has(keyOf(m));
    state.messages.set(keyOf(m), { ...state.messages.get(keyOf(m)), ...m, pending: false });
    if (!known && !echo && announce) {
      tell(m);
      if (!isMine(m)) fresh++;
    }
  }
  if (fresh && !state.open) addUnread(fresh);
  if (fresh && state.open) api.seen().catch(() => undefined);
  redraw();
}
