import { cableSender } from '#shared/realtime/senders.ts';
import { runPinger } from '#shared/realtime/pinger.ts';

// Scheduled every minute: greets new connections and pings all of its shard for just under a minute.
export const handler = async (event: { shard?: number; shards?: number }, context: { getRemainingTimeInMillis(): number }) => {
  const sender = cableSender();
  if (!sender) throw new Error('CABLE_ENDPOINT is not configured');
  // Leave a few seconds of the timeout; the next run starts on the next minute.
  const runForMs = Math.min(60_000, context.getRemainingTimeInMillis() - 8_000);
  return runPinger({ sender, runForMs, shard: event.shard, shards: event.shards });
};
