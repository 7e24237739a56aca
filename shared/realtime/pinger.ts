import { createHash } from 'node:crypto';
import * as repo from '#shared/db/repositories/cable.ts';
import { log } from '#shared/log.ts';
import type { Sender } from './protocol.ts';
import { CONNECTION_LIFETIME_MS } from './connections.ts';
import { frames, PING_INTERVAL_MS } from './protocol.ts';

// Deployed, nothing speaks on an idle WebSocket API connection unless something posts to it: this loop
// greets new connections (API Gateway cannot send during $connect) and pings every connection every 3 s.
// A scheduled function runs it for about a minute at a time; shards split the connections when one
// loop cannot post fast enough.

export interface PingerOptions {
  sender: Sender;
  /** Stop after this long (the schedule starts the next run). */
  runForMs: number;
  pingIntervalMs?: number;
  /** How often new connections are looked for (and greeted). */
  discoverIntervalMs?: number;
  shard?: number;
  shards?: number;
  /** Posts in flight at once. */
  concurrency?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** A connection that is not open yet answers 410 too; only after this long is a 410 final. */
const OPENING_GRACE_MS = 10_000;

const shardOf = (connectionId: string, shards: number) => createHash('sha1').update(connectionId).digest().readUInt32BE(0) % shards;

/** One post failing for a passing reason (throttling) must not stop the others: it is logged and retried next round. */
async function eachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const item = items[next++];
        await fn(item).catch((error) => log.warn('pinger post failed', { error }));
      }
    }),
  );
}

export interface PingerStats {
  pings: number;
  welcomes: number;
  removed: number;
}

export async function runPinger(opts: PingerOptions): Promise<PingerStats> {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const shards = Math.max(1, opts.shards ?? 1);
  const shard = opts.shard ?? 0;
  const pingEvery = opts.pingIntervalMs ?? PING_INTERVAL_MS;
  const discoverEvery = opts.discoverIntervalMs ?? 1_000;
  const concurrency = opts.concurrency ?? 64;
  const stats: PingerStats = { pings: 0, welcomes: 0, removed: 0 };
  const live = new Map<string, { connectedAt: number; welcomed: boolean }>();
  const started = now();
  // Every connection that can still be open was made within its lifetime.
  let cursor = started - CONNECTION_LIFETIME_MS;
  let lastPing = 0;

  const drop = async (id: string) => {
    live.delete(id);
    await repo.deleteConnection(id);
    stats.removed++;
  };

  while (now() - started < opts.runForMs) {
    const found = await repo.listConnectionsAfter(cursor);
    for (const c of found) {
      cursor = Math.max(cursor, c.connected_at);
      if (shardOf(c.connection_id, shards) === shard && !live.has(c.connection_id))
        live.set(c.connection_id, { connectedAt: c.connected_at, welcomed: c.welcomed });
    }
    const greet = [...live].filter(([, c]) => !c.welcomed);
    await eachLimited(greet, concurrency, async ([id, c]) => {
      if (await opts.sender.send(id, frames.welcome())) {
        c.welcomed = true;
        stats.welcomes++;
        await repo.markWelcomed(id);
      } else if (now() - c.connectedAt > OPENING_GRACE_MS) await drop(id);
    });
    if (now() - lastPing >= pingEvery) {
      lastPing = now();
      const ping = frames.ping(lastPing);
      await eachLimited(
        [...live].filter(([, c]) => c.welcomed),
        concurrency,
        async ([id]) => {
          if (await opts.sender.send(id, ping)) stats.pings++;
          else await drop(id);
        },
      );
    }
    await sleep(Math.max(0, Math.min(discoverEvery, lastPing + pingEvery - now())));
  }
  log.info('pinger run', { shard, shards, connections: live.size, ...stats });
  return stats;
}
