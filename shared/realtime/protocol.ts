// The ActionCable wire protocol (sub-protocol `actioncable-v1-json`) as Rails speaks it: every frame is
// one JSON object; the client's `identifier` is a JSON string that the server echoes byte for byte.
// Pure: no sockets, no AWS.

export const SUBPROTOCOL = 'actioncable-v1-json';

/** @rails/actioncable's connection monitor reconnects after 6 s without a ping: one every 3 s keeps it calm. */
export const PING_INTERVAL_MS = 3_000;

/** API Gateway refuses WebSocket frames above 32 KB; the local server holds clients to the same. */
export const MAX_FRAME_BYTES = 32 * 1024;

/** A dashboard or widget holds one subscription; a few more leave room for custom clients. */
export const MAX_SUBSCRIPTIONS = 10;

/** Subscribe commands a connection may send over its lifetime, accepted or not (each may cost a lookup). */
export const MAX_SUBSCRIBE_ATTEMPTS = 50;

/** The one channel Chatwoot serves. */
export const ROOM_CHANNEL = 'RoomChannel';

/**
 * Frames a socket may send in a minute (a fixed window). A client sends a subscribe or a few (the
 * guarantor resends until confirmed) and `update_presence` every 20–30 s; past this the socket is closed
 * (1008, policy violation) and the frame dropped: ActionCable clients reconnect, a flood costs its sender.
 */
export const MAX_FRAMES_PER_MINUTE = 30;

/**
 * Open sockets per client address, counted in the table across every server (and the WebSocket API's
 * $connect); one more is refused at the handshake (HTTP 429). Generous for offices and visitors behind
 * one NAT address.
 */
export const MAX_SOCKETS_PER_ADDRESS = 100;

export type Frame = Record<string, unknown>;

/** Sends one frame to one connection; false when the connection is gone for good. */
export interface Sender {
  send(connectionId: string, frame: Frame): Promise<boolean>;
  /**
   * Sends many connections' frames at once (each connection's in order) and answers the connections that are
   * gone; a transport that batches (the Fargate tasks' queues) has it, `deliver` then uses it.
   */
  sendBatch?(items: { connectionId: string; frames: Frame[] }[]): Promise<Set<string>>;
  /** Closes a connection (one over its frame limit); a transport that cannot leaves it out. */
  close?(connectionId: string): Promise<void>;
}

export const frames = {
  welcome: (): Frame => ({ type: 'welcome' }),
  ping: (now = Date.now()): Frame => ({ type: 'ping', message: Math.floor(now / 1000) }),
  confirm: (identifier: string): Frame => ({ identifier, type: 'confirm_subscription' }),
  reject: (identifier: string): Frame => ({ identifier, type: 'reject_subscription' }),
  message: (identifier: string, message: unknown): Frame => ({ identifier, message }),
  /** A RoomChannel broadcast: Chatwoot's `{event, data}` message. */
  event: (identifier: string, name: string, data: unknown): Frame => ({ identifier, message: { event: name, data } }),
  disconnect: (reason: string, reconnect: boolean): Frame => ({ type: 'disconnect', reason, reconnect }),
};

/** The sub-protocol to answer with: ours when the client offers it; none when it offers none (the Flutter SDK). */
export function pickSubprotocol(offered: string | string[] | undefined): string | undefined {
  const list = (Array.isArray(offered) ? offered : (offered ?? '').split(',')).map((p) => p.trim()).filter(Boolean);
  return list.includes(SUBPROTOCOL) ? SUBPROTOCOL : undefined;
}

export type Command =
  | { command: 'subscribe' | 'unsubscribe'; identifier: string; params: Record<string, unknown> }
  | { command: 'message'; identifier: string; params: Record<string, unknown>; data: Record<string, unknown> };

export type ParseFailure = { error: 'too_large' | 'not_json' | 'not_a_command' | 'unknown_command' | 'bad_identifier' | 'bad_data' };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The identifier's parameters (`{channel, pubsub_token, …}`), or nothing when it is not a JSON object. */
export function parseIdentifier(identifier: unknown): Record<string, unknown> | undefined {
  return typeof identifier === 'string' ? parseJsonObject(identifier) : undefined;
}

/**
 * One client frame as a command. `data` of a `message` is a JSON string from ActionCable clients and an
 * object from the Flutter SDK; both are accepted.
 */
export function parseCommand(raw: string | Buffer): Command | ParseFailure {
  const bytes = typeof raw === 'string' ? Buffer.byteLength(raw) : raw.length;
  if (bytes > MAX_FRAME_BYTES) return { error: 'too_large' };
  const frame = parseJsonObject(typeof raw === 'string' ? raw : raw.toString('utf8'));
  if (!frame) return { error: 'not_json' };
  const { command, identifier } = frame;
  if (typeof command !== 'string') return { error: 'not_a_command' };
  if (command !== 'subscribe' && command !== 'unsubscribe' && command !== 'message') return { error: 'unknown_command' };
  const params = parseIdentifier(identifier);
  if (!params) return { error: 'bad_identifier' };
  const id = identifier as string;
  if (command !== 'message') return { command, identifier: id, params };
  const data = typeof frame.data === 'string' ? parseJsonObject(frame.data) : isObject(frame.data) ? frame.data : undefined;
  if (!data) return { error: 'bad_data' };
  return { command, identifier: id, params, data };
}

export const isFailure = (c: Command | ParseFailure): c is ParseFailure => 'error' in c;
