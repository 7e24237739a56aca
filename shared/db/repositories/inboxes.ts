import { purgeJobItem } from './purge.ts';
import * as keys from '../keys.ts';
import type { Key } from '../keys.ts';
import { check, ConflictError, del, put, transact, type TxItem } from '../transact.ts';
import { applyChanges, backoff, isLostRace, sameVersion, versionedDel, versionedPut, type AttributeChanges } from './versioned.ts';
import { notFound } from '#shared/errors.ts';
import { inboxSummaryOf, type InboxMemberRecord, type InboxRecord, type InboxSummary } from '#shared/model/inboxes.ts';
import { inboxSummariesStarted, summaryItem, summaryUpdate, summaryWrites } from './inbox-summaries.ts';
import { getItem, getMany, queryItems, queryPrefix, record } from './common.ts';
import { INDEXES } from '../table.ts';
import { openAll, openFields, sealFields } from '#shared/crypto/secret-fields.ts';

// Access patterns of the inboxes area (AP20-29). An account's inboxes and their memberships share one
// partition; a membership also carries gsi1 so that a user's inboxes are one Query.

/** AP20: an inbox of an account. */
export const getInbox = async (accountId: number, inboxId: number, consistent = false) =>
  openFields('inbox', await getItem<InboxRecord>(keys.inbox(accountId, inboxId), consistent));

/** AP21: several inboxes of an account (BatchGet), in the order of `ids`. */
export const getInboxes = async (accountId: number, ids: number[]) =>
  openAll('inbox', await getMany<InboxRecord>(ids.map((id) => keys.inbox(accountId, id))));

/** AP22: the inboxes of an account, by id. */
export async function listInboxes(accountId: number): Promise<InboxRecord[]> {
  const p = keys.inboxesOf(accountId);
  return openAll(
    'inbox',
    (await queryPrefix({ pk: p.pk }, p.skPrefix)).map((i) => record<InboxRecord>(i)!),
  );
}

/**
 * AP28: every inbox of an account, summarized (id, name, channel type, avatar, bot: what report rows,
 * contactable inboxes and bot lookups need): one Query of ~100-byte items instead of AP22's whole ones, and
 * no secret opened. Until the account's summaries are marked complete (AP29: an account made before them,
 * not backfilled yet) the summaries are derived from the whole items instead.
 */
export async function listInboxSummaries(accountId: number): Promise<InboxSummary[]> {
  const p = keys.inboxSummariesOf(accountId);
  const items = await queryPrefix({ pk: p.pk }, p.skPrefix);
  const mark = keys.inboxSummariesComplete(accountId).sk;
  if (!items.some((i) => i.sk === mark)) {
    const whole = keys.inboxesOf(accountId);
    return (await queryPrefix({ pk: whole.pk }, whole.skPrefix)).map((i) => inboxSummaryOf(record<InboxRecord>(i)!));
  }
  return items.filter((i) => i.sk !== mark).map((i) => inboxSummaryOf(record<InboxSummary>(i)!));
}

const FILL_CHUNK = 50;

/** Every item of a partition under a prefix, strongly consistent (a maintenance pass's read). */
const consistentPrefix = (pk: string, prefix: string) =>
  queryItems({
    KeyConditionExpression: 'pk = :p AND begins_with(sk, :s)',
    ExpressionAttributeValues: { ':p': pk, ':s': prefix },
    ConsistentRead: true,
  });

/**
 * AP29: writes the summary of every inbox of an account made before summaries existed, then the mark that
 * AP28 may read them; for an account already marked, the summaries still missing (an inbox made by the
 * previous version while an upgrade rolled out). Each summary is put on the condition that its inbox still
 * has the version read (a concurrent change or delete makes the pass read again), so none is stale or
 * outlives its inbox. True when it wrote anything.
 */
export async function fillInboxSummaries(accountId: number): Promise<boolean> {
  const mark = keys.inboxSummariesComplete(accountId);
  const whole = keys.inboxesOf(accountId);
  for (let attempt = 0; attempt < 10; attempt++) {
    const [summaries, items] = await Promise.all([
      consistentPrefix(mark.pk, keys.inboxSummariesOf(accountId).skPrefix),
      consistentPrefix(whole.pk, whole.skPrefix),
    ]);
    const have = new Set(summaries.map((i) => String(i.sk)));
    const marked = have.has(mark.sk);
    const inboxes = items.map((i) => record<InboxRecord>(i)!);
    // Without the mark every summary is rewritten: one an attribute update left partial is made whole.
    const missing = marked ? inboxes.filter((i) => !have.has(keys.inboxSummary(accountId, i.id).sk)) : inboxes;
    if (marked && !missing.length) return false;
    try {
      for (let i = 0; i < missing.length; i += FILL_CHUNK) {
        await transact(
          missing
            .slice(i, i + FILL_CHUNK)
            .flatMap((inbox) => [
              { item: check(keys.inbox(accountId, inbox.id), sameVersion(inbox.version)) },
              { item: put(summaryItem(inbox)) },
            ]),
        );
      }
      if (!marked) await transact([inboxSummariesStarted(accountId)]);
      return true;
    } catch (err) {
      if (!(err instanceof ConflictError) && !isLostRace(err)) throw err;
    }
    await backoff(attempt);
  }
  throw new Error(`The inboxes of account ${accountId} kept changing while their summaries were written`);
}

/** AP23: ids of the inboxes a user is a member of (gsi1). */
export async function listAgentInboxIds(accountId: number, userId: number): Promise<number[]> {
  const p = keys.userInboxesOf(accountId, userId);
  return (await queryPrefix({ gsi1pk: p.gsi1pk }, p.skPrefix)).map((i) => keys.lastIdOf(String(i.gsi1sk)));
}

/** AP24: user ids of the members of an inbox. */
export async function listInboxMemberIds(accountId: number, inboxId: number): Promise<number[]> {
  const p = keys.inboxMembersOf(accountId, inboxId);
  return (await queryPrefix({ pk: p.pk }, p.skPrefix)).map((i) => keys.lastIdOf(String(i.sk)));
}

/** AP25: is this user a member of this inbox? */
export const isInboxMember = async (accountId: number, inboxId: number, userId: number) =>
  (await getItem(keys.inboxMember(accountId, inboxId, userId))) !== undefined;

/** AP26: the API inbox of a public `inbox_identifier` (its sentinel names the inbox). */
export async function findInboxByIdentifier(identifier: string): Promise<InboxRecord | undefined> {
  const owner = await getItem<{ account_id: number; inbox_id: number }>(keys.inboxIdentifierUnique(identifier));
  return owner ? getInbox(owner.account_id, owner.inbox_id) : undefined;
}

/** AP27: the web widget inbox of a `website_token` (its sentinel names the inbox). */
export async function findInboxByWebsiteToken(token: string): Promise<InboxRecord | undefined> {
  const owner = await getItem<{ account_id: number; inbox_id: number }>(keys.websiteTokenUnique(token));
  return owner ? getInbox(owner.account_id, owner.inbox_id) : undefined;
}

/** AP318: the email inbox whose address or forwarding address this is (lower-cased; their sentinels name the inbox). */
export async function findInboxByChannelAddress(address: string, forwardDomain?: string): Promise<InboxRecord | undefined> {
  // An address on the inbound domain is most likely a forwarding address: asked first.
  const kinds =
    forwardDomain && address.endsWith(`@${forwardDomain}`) ? (['EMAIL_FORWARD', 'EMAIL'] as const) : (['EMAIL', 'EMAIL_FORWARD'] as const);
  for (const kind of kinds) {
    const owner = await getItem<{ account_id: number; inbox_id: number }>(keys.channelUnique(kind, address.toLowerCase()));
    if (owner) return getInbox(owner.account_id, owner.inbox_id);
  }
  return undefined;
}

const inboxItem = async (i: InboxRecord) => ({
  ...keys.inbox(i.account_id, i.id),
  // Sparse: only email inboxes with IMAP on carry it, so the poller lists them in one Query (AP317).
  ...(i.channel_type === 'Channel::Email' && i.email_settings?.imap_enabled === true ? keys.imapInboxIndex(i.account_id, i.id) : {}),
  type: 'inbox',
  ...(await sealFields('inbox', i)),
});

/** AP317: every email inbox with IMAP polling on, across accounts (account and inbox ids). */
export async function listImapInboxIds(): Promise<{ account_id: number; inbox_id: number }[]> {
  const items = await queryItems({
    IndexName: INDEXES.gsi2.name,
    KeyConditionExpression: '#p = :p',
    ExpressionAttributeNames: { '#p': INDEXES.gsi2.pk },
    ExpressionAttributeValues: { ':p': keys.imapInboxes().gsi2pk },
  });
  return items.map((i) => ({ account_id: Number(i.account_id), inbox_id: Number(i.id) }));
}

/** A uniqueness sentinel owned by an inbox; `onConflict` names the field that is taken. */
export interface InboxSentinel {
  key: Key;
  onConflict?: () => Error;
}

const sentinelPut = (i: InboxRecord, s: InboxSentinel): TxItem => ({
  item: put({ ...s.key, type: 'unique', account_id: i.account_id, inbox_id: i.id }, { ifNew: true }),
  onConflict: s.onConflict,
});

export async function createInbox(inbox: InboxRecord, sentinels: InboxSentinel[]): Promise<void> {
  await transact([versionedPut(await inboxItem(inbox)), ...summaryWrites(inbox), ...sentinels.map((s) => sentinelPut(inbox, s))]);
}

/** Writes the next version of an inbox, swapping the sentinels whose values changed. */
export async function updateInbox(
  before: InboxRecord,
  after: InboxRecord,
  removed: Key[] = [],
  added: InboxSentinel[] = [],
): Promise<void> {
  await transact([
    versionedPut(await inboxItem(after), before.version),
    ...summaryWrites(after, before),
    ...removed.map((k) => ({ item: del(k) })),
    ...added.map((s) => sentinelPut(after, s)),
  ]);
}

/**
 * AP20 write without a read: settings that hold no uniqueness sentinel replaced on the stored item (its
 * version moved on), so concurrent changes never conflict; undefined when the inbox is gone. A change of a
 * summarized field (a name, an avatar) moves the summary in the same transaction.
 */
export const changeInboxAttributes = async (accountId: number, inboxId: number, changes: AttributeChanges) =>
  openFields(
    'inbox',
    await applyChanges<InboxRecord>(
      keys.inbox(accountId, inboxId),
      { ...changes, set: await sealFields('inbox', changes.set), merge: await sealFields('inbox', changes.merge) },
      summaryUpdate(accountId, inboxId, changes.set),
    ),
  );

/** The inbox with its new bot, granting (`grant`) or revoking a bot's access item in the same transaction. */
export async function setInboxAgentBot(before: InboxRecord, after: InboxRecord, grant: Key | undefined, revoke: Key[]): Promise<void> {
  await transact([
    versionedPut(await inboxItem(after), before.version),
    ...summaryWrites(after, before),
    ...(grant
      ? [{ item: put({ ...grant, type: 'agent_bot_access', account_id: after.account_id, agent_bot_id: after.agent_bot_id }) }]
      : []),
    ...revoke.map((k) => ({ item: del(k) })),
  ]);
}

const memberItem = (m: InboxMemberRecord) => ({
  ...keys.inboxMember(m.account_id, m.inbox_id, m.user_id),
  ...keys.inboxMemberIndex(m.account_id, m.inbox_id, m.user_id),
  type: 'inbox_member',
  ...m,
});

const MAX_TX = 100;

/**
 * Adds and removes memberships. The first transaction checks that the inbox still exists, so that
 * members are never written to an inbox deleted meanwhile; beyond 99 changes, later chunks follow.
 */
export async function changeInboxMembers(inbox: InboxRecord, add: InboxMemberRecord[], remove: number[]): Promise<void> {
  const writes: TxItem[] = [
    ...add.map((m) => ({ item: put(memberItem(m)) })),
    ...remove.map((u) => ({ item: del(keys.inboxMember(inbox.account_id, inbox.id, u)) })),
  ];
  const guard: TxItem = {
    item: check(keys.inbox(inbox.account_id, inbox.id), { expression: 'attribute_exists(pk)' }),
    onConflict: () => notFound('Inbox'),
  };
  for (let i = 0; i === 0 || i < writes.length; i += MAX_TX - 1) {
    await transact(i === 0 ? [guard, ...writes.slice(0, MAX_TX - 1)] : writes.slice(i, i + MAX_TX - 1));
  }
}

/** Removes an inbox, its sentinels and its memberships (the inbox and first members in one transaction). */
export async function deleteInbox(inbox: InboxRecord, sentinels: Key[]): Promise<void> {
  const members = await listInboxMemberIds(inbox.account_id, inbox.id);
  // The purge job goes with the inbox item: its conversations, contact inboxes and the rest follow in the pipeline.
  const first: TxItem[] = [
    versionedDel(keys.inbox(inbox.account_id, inbox.id), inbox.version),
    { item: del(keys.inboxSummary(inbox.account_id, inbox.id)) },
    ...sentinels.map((k) => ({ item: del(k) })),
    purgeJobItem({ kind: 'inbox', account_id: inbox.account_id, inbox_id: inbox.id, created_at: Math.floor(Date.now() / 1000) }),
  ];
  const rest = members.map((u) => ({ item: del(keys.inboxMember(inbox.account_id, inbox.id, u)) }));
  const room = MAX_TX - first.length;
  await transact([...first, ...rest.slice(0, room)]);
  for (let i = room; i < rest.length; i += MAX_TX) await transact(rest.slice(i, i + MAX_TX));
}
