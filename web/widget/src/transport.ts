import { connectCable, type Cable, type CableEvent } from './cable.ts';
import { root } from './dom.ts';
import { api } from './page.ts';
import { state, tell, upsert, type Msg } from './state.ts';
import { showAgentTyping } from './typing.ts';

// Live updates: the cable, and polling while it is not live.

const POLL_MS = 3000;
let url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/cable`;
let cable: Cable | undefined;

export async function refresh() {
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
    // Chatwoot's widget tells the page of every message the socket brings, the visitor's own too.
    if (e.event === 'message.created') tell(d as Msg);
  } else if (e.event === 'conversation.typing_on' || e.event === 'conversation.typing_off') {
    if (d.is_private || d.user?.type === 'contact') return;
    showAgentTyping(e.event === 'conversation.typing_on');
  }
}

/** (Re)subscribes as the contact `pubsub`; `socketUrl` is where the service says its socket is, when not here. */
export function connect(pubsub: string, socketUrl?: string) {
  if (socketUrl) url = socketUrl;
  cable?.close();
  cable = connectCable(url, pubsub, onCable, (live) => {
    // Shown for people and tests: whether replies arrive over the socket or by polling.
    root.dataset.live = String(live);
    if (live) void refresh();
  });
}

export function startPolling() {
  setInterval(() => {
    if (state.ready && !cable?.live) void refresh();
  }, POLL_MS);
}
