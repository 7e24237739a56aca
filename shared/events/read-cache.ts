import { onWrite } from '../db/client.ts';
import { cableSubscriptionPartition } from '../db/keys.ts';
import { ReadCache, slowlyChangingCache } from '../db/repositories/common.ts';

/**
 * How long a dispatcher container trusts what it read of an account, its users, bots, inboxes, teams,
 * webhooks, automation rules and contact inboxes. A webhook (or rule, inbox, bot) created, edited or
 * deleted less than this long ago may be missed, or still used, by events dispatched meanwhile on a warm
 * container. Conversations, messages and contacts are always read fresh.
 */
export const PIPELINE_CACHE_TTL_MS = 10_000;

/**
 * How long a dispatcher container trusts the list of an account's live socket subscriptions (AP151). A
 * socket that subscribed less than this long ago may miss the frames of events dispatched meanwhile by a
 * container that read the list before; one that went away meanwhile costs a PostToConnection answered 410.
 * Short, because a frame missed is gone for that socket; long enough that a busy account's events share
 * one read (at 200 events/s, one Query per second instead of 200).
 */
export const SUBSCRIPTIONS_CACHE_TTL_MS = 1_000;

/**
 * The dispatcher's per-container cache (see shared/db/repositories/common.ts ReadCache). Writes the
 * container makes itself of such items drop it (automation actions; every write where one process runs
 * all functions, as the local runtime does).
 */
export const pipelineCache = slowlyChangingCache(PIPELINE_CACHE_TTL_MS);

/** The broadcast stage's cache of each account's subscriptions (shared/events/broadcast.ts). */
export const subscriptionsCache = new ReadCache(SUBSCRIPTIONS_CACHE_TTL_MS);

// The container's own writes of subscriptions drop their cache at once.
onWrite((written) => {
  if (written.some((k) => cableSubscriptionPartition(k.pk))) subscriptionsCache.forget();
});
