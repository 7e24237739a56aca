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

/**
 * The Fargate socket server (cableTransport 'fargate', the default): bundled with the functions under this
 * name, with a Dockerfile beside it that the construct builds its image from.
 */
export const CABLE_SERVER = { name: 'cable-server', entry: 'infra/cable-server/main.ts' } as const;

/** The image: the bundle on Node 22 (Alpine, arm64 under Fargate's ARM64 platform). */
export const CABLE_SERVER_DOCKERFILE = `FROM node:22-alpine
WORKDIR /app
COPY . /app/
ENV NODE_ENV=production PORT=8080
EXPOSE 8080
USER node
CMD ["node", "/app/index.mjs"]
`;
