// A small ActionCable client for Chatwoot's RoomChannel: the server says `welcome`, pings every few
// seconds and confirms the subscription; events arrive as `{identifier, message: {event, data}}`. The
// socket reconnects with backoff; `live` tells whether events are flowing right now, so the chat can poll
// while they are not.

export interface CableEvent {
  event: string;
  /** A message, or a typing event (`is_private`, `user`). */
  data: Record<string, unknown> & {
    private?: boolean;
    message_type?: number;
    conversation_id?: number;
    is_private?: boolean;
    user?: { type?: string };
  };
}

export interface Cable {
  readonly live: boolean;
  close(): void;
}

const STALE_MS = 15_000;

export function connectCable(url: string, pubsubToken: string, onEvent: (e: CableEvent) => void, onLive: (live: boolean) => void): Cable {
  const identifier = JSON.stringify({ channel: 'RoomChannel', pubsub_token: pubsubToken });
  let ws: WebSocket | undefined;
  let live = false;
  let closed = false;
  let attempt = 0;
  let lastSeen = 0;
  let presence: ReturnType<typeof setInterval> | undefined;
  let watchdog: ReturnType<typeof setInterval> | undefined;

  const setLive = (v: boolean) => {
    if (v !== live) onLive((live = v));
  };
  const send = (x: unknown) => ws?.readyState === 1 && ws.send(JSON.stringify(x));

  function open() {
    if (closed) return;
    try {
      ws = new WebSocket(url, ['actioncable-v1-json', 'actioncable-unsupported']);
    } catch {
      return retry();
    }
    ws.onmessage = (m) => {
      lastSeen = Date.now();
      let f: { type?: string; reconnect?: boolean; message?: { event?: unknown } };
      try {
        f = JSON.parse(String(m.data));
      } catch {
        return;
      }
      if (f.type === 'welcome') send({ command: 'subscribe', identifier });
      else if (f.type === 'confirm_subscription') {
        attempt = 0;
        setLive(true);
      } else if (f.type === 'reject_subscription') ws?.close();
      else if (f.type === 'disconnect' && f.reconnect === false) stop();
      else if (!f.type && f.message && typeof f.message.event === 'string') onEvent(f.message as unknown as CableEvent);
    };
    ws.onclose = () => {
      setLive(false);
      retry();
    };
    ws.onerror = () => ws?.close();
  }

  function retry() {
    if (closed) return;
    attempt += 1;
    setTimeout(open, Math.min(30_000, 500 * 2 ** Math.min(attempt, 6)));
  }

  function stop() {
    closed = true;
    clearInterval(presence);
    clearInterval(watchdog);
    setLive(false);
    ws?.close();
  }

  // Chatwoot's widget announces the visitor's presence every 20 s.
  presence = setInterval(
    () => live && send({ command: 'message', identifier, data: JSON.stringify({ action: 'update_presence' }) }),
    20_000,
  );
  // A socket that has said nothing for a while (no pings) is dead even if the browser has not noticed.
  watchdog = setInterval(() => live && Date.now() - lastSeen > STALE_MS && ws?.close(), 5_000);
  open();
  return {
    get live() {
      return live;
    },
    close: stop,
  };
}
