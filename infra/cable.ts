// The socket functions (deployed /cable), read by the build and the CDK construct. The local runtime
// serves /cable itself (infra/local/cable-server.ts) with the same RoomChannel code.

export const CABLE_HANDLERS = {
  /** $connect: records the connection, answers the ActionCable sub-protocol. */
  connect: 'functions/cable/connect.ts',
  /** $disconnect: removes the connection and its subscriptions. */
  disconnect: 'functions/cable/disconnect.ts',
  /** $default: subscribe / unsubscribe / message. */
  default: 'functions/cable/default.ts',
  /** Scheduled: greets new connections, pings every connection every 3 s. */
  ping: 'functions/cable/ping.ts',
} as const;

export const CABLE_FUNCTION_NAMES = {
  connect: 'cable-connect',
  disconnect: 'cable-disconnect',
  default: 'cable-default',
  ping: 'cable-ping',
} as const satisfies Record<keyof typeof CABLE_HANDLERS, string>;

/** The stage name is the path: `wss://<api host>/cable`, where Chatwoot clients look for it. */
export const CABLE_STAGE = 'cable';
