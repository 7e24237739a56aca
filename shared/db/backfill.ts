import { checkpointedScan, setIfUnchanged } from './maintenance.ts';
import { moveToTeamPartitions } from './repositories/conversations.ts';
import { log } from '#shared/log.ts';
import * as keys from './keys.ts';
import { isListed, locates } from './repositories/contacts.ts';
import { fillInboxSummaries } from './repositories/inboxes.ts';
import type { ContactInboxRecord, ContactRecord } from '#shared/model/contacts.ts';

// Index keys that later versions derive from an item's own fields, added to items written before those
// versions existed (and items derived from a set of others, below): one checkpointed Scan (an interrupted run resumes), each item updated only while the
// key is still missing, so a writer that sets it meanwhile wins.

type Item = Record<string, unknown>;

/** What an item of a type lacks: the index attributes to add, or nothing. One entry per index version. */
export const DERIVED_KEYS: Record<string, (item: Item) => Item | undefined> = {
  // AP154: the socket's pubsub-token lookup (added with /cable); AP261: an inbox's contact inboxes (added with the purge).
  contact_inbox: (i) => {
    const add: Item = {
      ...(i.gsi1pk === undefined && typeof i.pubsub_token === 'string' && i.pubsub_token && !locates(i as unknown as ContactInboxRecord)
        ? keys.contactInboxPubsubIndex(i.pubsub_token)
        : {}),
      ...(i.gsi2pk === undefined && typeof i.source_id === 'string'
        ? keys.inboxContactIndex(Number(i.account_id), Number(i.inbox_id), Number(i.contact_id), i.source_id)
        : {}),
    };
    return Object.keys(add).length ? add : undefined;
  },
  // AP260: unlisted (anonymous) contacts, for the purge of a deleted account (added with the purge).
  contact: (i) =>
    i.gsi2pk === undefined && !isListed(i as unknown as ContactRecord)
      ? keys.unlistedContactIndex(Number(i.account_id), Number(i.id))
      : undefined,
  // AP63: the slim activity index of conversation lists (added with the cost work); AP62: the account-wide
  // activity index (added with the flat lists).
  conversation: (i) => {
    if (typeof i.status !== 'string') return undefined;
    const c = {
      account_id: Number(i.account_id),
      inbox_id: Number(i.inbox_id),
      status: i.status,
      last_activity_at: Number(i.last_activity_at ?? i.created_at ?? 0),
      id: Number(i.id),
      team_id: i.team_id == null ? null : Number(i.team_id),
    };
    const add: Item = {
      ...(i.gsi3pk === undefined ? keys.conversationIndex(c) : {}),
      ...(i.gsi4pk === undefined ? keys.accountConversationIndex(c) : {}),
    };
    return Object.keys(add).length ? add : undefined;
  },
};

/** The attributes `item` lacks, if any. */
export const missingKeys = (item: Item): Item | undefined => DERIVED_KEYS[String(item.type)]?.(item);

export interface BackfillProgress {
  scanned: number;
  updated: number;
  complete: boolean;
}

async function addKeys(item: Item, add: Item): Promise<boolean> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  const conds: string[] = ['attribute_exists(pk)'];
  for (const [i, [k, v]] of Object.entries(add).entries()) {
    names[`#k${i}`] = k;
    values[`:v${i}`] = v;
    sets.push(`#k${i} = :v${i}`);
    conds.push(`attribute_not_exists(#k${i})`);
  }
  // False when deleted, or a writer set the key since the scan read it: either way nothing is left to do.
  return setIfUnchanged(item, { sets, conditions: conds, names, values });
}

/**
 * An account made before the team partitions of its activity index (AP62): its conversations with a team moved out of
 * the shards, then the account marked (`team_list_partitions`), so that a team's page reads its partition alone.
 */
async function fillTeamPartitions(account: Item): Promise<boolean> {
  if (account.team_list_partitions === true) return false;
  await moveToTeamPartitions(Number(account.id));
  await setIfUnchanged(account, {
    sets: ['#f = :t'],
    conditions: ['attribute_exists(pk)'],
    names: { '#f': 'team_list_partitions' },
    values: { ':t': true },
  });
  return true;
}

/**
 * Items later versions derive from a set of others, written for an item of a type that owns the set: an
 * account's inbox summaries (AP28), filled and marked complete (AP29; added with the slim inbox listing); its
 * conversations with a team in their team's partition of the account index (added with the team partitions).
 */
export const DERIVED_ITEMS: Record<string, (item: Item) => Promise<boolean>> = {
  account: async (i) => {
    const summaries = await fillInboxSummaries(Number(i.id));
    const teams = await fillTeamPartitions(i);
    return summaries || teams;
  },
};

/** Adds every missing derived key and item in the table; `maxPages` bounds one call (run again to resume). */
export async function backfillAll(opts: { pageSize?: number; maxPages?: number } = {}): Promise<BackfillProgress> {
  const p = await checkpointedScan(
    'backfill',
    async (item) => {
      const add = missingKeys(item);
      const keysAdded = !!add && (await addKeys(item, add));
      const itemsAdded = (await DERIVED_ITEMS[String(item.type)]?.(item)) ?? false;
      return keysAdded || itemsAdded;
    },
    { pageSize: opts.pageSize ?? 200, maxPages: opts.maxPages },
  );
  log.info('backfill progress', { scanned: p.scanned, updated: p.changed, complete: p.complete });
  return { scanned: p.scanned, updated: p.changed, complete: p.complete };
}
