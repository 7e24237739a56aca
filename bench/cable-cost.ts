// Monthly cost of keeping N idle /cable connections alive, for the two deployed designs: the Fargate socket
// server behind a Network Load Balancer and CloudFront (cableTransport 'fargate', the default) and the API
// Gateway WebSocket API with its pinger (cableTransport 'websocket-api'). Idle means: no conversation traffic, but
// what every listed client does anyway: the server pings every 3 s (@rails/actioncable reconnects after
// 6 s without one) and the client sends update_presence every 20 s (the dashboard; the widget and the
// Flutter SDK every 30 s). us-east-1 list prices, arm64; a month of 30 days.

export const PRICES = {
  wsMessagePerMillion: 1.0, // API Gateway WebSocket messages (first billion), 32 KB units
  wsConnectionMinutePerMillion: 0.25,
  lambdaRequestPerMillion: 0.2,
  lambdaGbSecondArm: 0.0000133334,
  ddbReadPerMillion: 0.125, // on-demand read request units (since the price cut of November 2024)
  ddbWritePerMillion: 0.625, // on-demand write request units
  fargateVcpuHourArm: 0.03238,
  fargateGbHourArm: 0.00356,
  publicIpv4Hour: 0.005,
  nlbHour: 0.0225,
  nlcuHour: 0.006,
  dataOutGbApiGateway: 0.09, // API Gateway data transfer out (EC2 internet rate)
  cloudfrontGbOut: 0.085, // CloudFront to viewers (North America / Europe)
  cloudfrontGbToOrigin: 0.02, // CloudFront to the origin (client frames)
  sqsRequestPerMillion: 0.4,
  sqsFifoRequestPerMillion: 0.5,
  httpApiRequestPerMillion: 1.0, // API Gateway HTTP API (first 300 million a month)
};

const SECONDS = 30 * 24 * 3600;
const HOURS = SECONDS / 3600;
const PING_SECONDS = 3;
const PRESENCE_SECONDS = 20;
/** Bytes on the wire: a ping frame, an update_presence command in, the presence.update answer out. */
const PING_BYTES = 45;
const PRESENCE_IN_BYTES = 200;
const PRESENCE_OUT_BYTES = 150;

/** GB a month the server sends (pings, presence answers) and receives (presence commands). */
function traffic(n: number) {
  const out = ((n * SECONDS) / PING_SECONDS) * PING_BYTES + ((n * SECONDS) / PRESENCE_SECONDS) * PRESENCE_OUT_BYTES;
  const inbound = ((n * SECONDS) / PRESENCE_SECONDS) * PRESENCE_IN_BYTES;
  return { outGb: out / 1e9, inGb: inbound / 1e9 };
}

/** DynamoDB work of one update_presence (same code in both designs): connection + subscription reads, presence put, two small queries. */
const PRESENCE_RRU = 3;
const PRESENCE_WRU = 1;

export interface CostLine {
  design: string;
  connections: number;
  /** Cost lines in USD per month. */
  parts: Record<string, number>;
  total: number;
}

const sum = (parts: Record<string, number>) => Object.values(parts).reduce((a, b) => a + b, 0);
const round = (n: number) => Math.round(n * 100) / 100;

/** Presence heartbeats' DynamoDB cost: the same in every design (the table holds presence). */
function presenceTable(n: number) {
  const updates = (n * SECONDS) / PRESENCE_SECONDS;
  return (updates * (PRESENCE_RRU * PRICES.ddbReadPerMillion + PRESENCE_WRU * PRICES.ddbWritePerMillion)) / 1e6;
}

/** Pinger shards: one per 1,500 connections; memory (and so CPU) sized to the posts per second it makes. */
export function pingerShape(n: number) {
  const shards = Math.max(1, Math.ceil(n / 1500));
  const perShard = n / shards;
  const memoryGb = perShard <= 150 ? 0.25 : perShard <= 1000 ? 1 : 1.769;
  return { shards, memoryGb };
}

export function apiGatewayCost(n: number): CostLine {
  const pings = (n * SECONDS) / PING_SECONDS;
  const presence = (n * SECONDS) / PRESENCE_SECONDS;
  const { shards, memoryGb } = pingerShape(n);
  const parts = {
    'ping messages': (pings * PRICES.wsMessagePerMillion) / 1e6,
    'connection minutes': ((n * SECONDS) / 60) * (PRICES.wsConnectionMinutePerMillion / 1e6),
    // Each update_presence is a message in, a $default invocation (256 MB, ~30 ms) and a message back.
    'presence messages + $default':
      (presence * 2 * PRICES.wsMessagePerMillion) / 1e6 +
      presence * (PRICES.lambdaRequestPerMillion / 1e6 + 0.25 * 0.03 * PRICES.lambdaGbSecondArm),
    // The pinger runs all month, one function per shard, and looks for new connections once a second.
    pinger: shards * (SECONDS * memoryGb * PRICES.lambdaGbSecondArm + ((SECONDS * 0.5) / 1e6) * PRICES.ddbReadPerMillion),
    'presence (table)': presenceTable(n),
    // API Gateway closes every connection after 2 h: a reconnect ($connect, welcome, subscribe, confirm) 12 times a day.
    reconnects: n * 12 * 30 * ((4 * PRICES.wsMessagePerMillion + 2 * PRICES.lambdaRequestPerMillion + 6 * PRICES.ddbWritePerMillion) / 1e6),
    'data transfer out': traffic(n).outGb * PRICES.dataOutGbApiGateway,
  };
  return {
    design: "API Gateway WebSocket API + pinger function (cableTransport 'websocket-api')",
    connections: n,
    parts,
    total: sum(parts),
  };
}

export function fargateCost(n: number): CostLine {
  // Two tasks for availability; 0.25 vCPU / 0.5 GB each up to a few thousand idle sockets, 1 vCPU / 2 GB at 10,000.
  const [vcpu, gb] = n <= 2000 ? [0.25, 0.5] : [1, 2];
  const tasks = 2;
  // TCP listener (TLS ends at CloudFront): an NLCU is 100,000 active flows (or 800 new/s, 1 GB/h).
  const { outGb, inGb } = traffic(n);
  const nlcu = Math.max(n / 100_000, (outGb + inGb) / HOURS);
  const parts = {
    'Fargate tasks': tasks * HOURS * (vcpu * PRICES.fargateVcpuHourArm + gb * PRICES.fargateGbHourArm),
    'public IPv4 (no NAT)': tasks * HOURS * PRICES.publicIpv4Hour,
    'Network Load Balancer': HOURS * (PRICES.nlbHour + nlcu * PRICES.nlcuHour),
    // One request per connection (negligible); bytes out to the clients and in to the origin.
    CloudFront: outGb * PRICES.cloudfrontGbOut + inGb * PRICES.cloudfrontGbToOrigin,
    // Each task long-polls its queue (20 s waits) even when no frame comes.
    'task queues (long polls)': ((tasks * SECONDS) / 20) * (PRICES.sqsRequestPerMillion / 1e6),
    'presence (table)': presenceTable(n),
  };
  return {
    design: "Fargate socket server (2 tasks) behind an NLB and CloudFront (cableTransport 'fargate', the default)",
    connections: n,
    parts,
    total: sum(parts),
  };
}

export const COST_SIZES = [100, 1_000, 10_000];

export function costTable(sizes = COST_SIZES) {
  return sizes
    .flatMap((n) => [apiGatewayCost(n), fargateCost(n)])
    .map((l) => ({ ...l, total: round(l.total), parts: Object.fromEntries(Object.entries(l.parts).map(([k, v]) => [k, round(v)])) }));
}

export function costMarkdown(sizes = COST_SIZES): string[] {
  const rows = costTable(sizes);
  const lines = ['| idle connections | design | USD / month | of which |', '|---|---|---|---|'];
  for (const r of rows) {
    const parts = Object.entries(r.parts)
      .map(([k, v]) => `${k} ${v.toFixed(2)}`)
      .join('; ');
    lines.push(`| ${r.connections.toLocaleString('en-US')} | ${r.design} | ${r.total.toFixed(2)} | ${parts} |`);
  }
  return lines;
}

const isMain = import.meta.url === `file://${process.argv[1]}`;
if (isMain) process.stdout.write(`${costMarkdown().join('\n')}\n`);
