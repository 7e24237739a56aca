import { slowlyChangingCache } from '#shared/db/repositories/common.ts';

/**
 * How long a dispatcher container trusts what it read of an account, its users, bots, inboxes, teams,
 * webhooks, automation rules and contact inboxes. A webhook (or rule, inbox, bot) created, edited or
 * deleted less than this long ago may be missed, or still used, by events dispatched meanwhile on a warm
 * container. Conversations, messages and contacts are always read fresh.
 */
export const PIPELINE_CACHE_TTL_MS = 10_000;

/**
 * The dispatcher's per-container cache (see shared/db/repositories/common.ts ReadCache). Writes the
 * container makes itself of such items drop it (automation actions; every write where one process runs
 * all functions, as the local runtime does).
 */
export const pipelineCache = slowlyChangingCache(PIPELINE_CACHE_TTL_MS);
