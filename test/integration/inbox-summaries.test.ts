import { beforeAll, describe, expect, it } from 'vitest';
import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '#shared/db/client.ts';
import * as keys from '#shared/db/keys.ts';
import { getAccount, getUser } from '#shared/db/repositories/identity.ts';
import { changeInboxAttributes, fillInboxSummaries, listInboxSummaries } from '#shared/db/repositories/inboxes.ts';
import { channelSummary, csvReport, summaryReport } from '#shared/domain/reports/service.ts';
import { botMetrics, firstResponseTimeDistribution, inboxLabelMatrix, outgoingMessagesCount } from '#shared/domain/reports/breakdowns.ts';
import { contactableInboxes } from '#shared/domain/contacts/contact-inboxes.ts';
import type { Actor } from '#shared/model/actor.ts';
import type { AccountRecord } from '#shared/model/identity.ts';
import { scopedReads } from '../support/calls.ts';
import { seedAccount, unique, type SeededAccount } from '../support/runtime.ts';
import { newBot, newContact, newInbox, ok } from '../e2e/conversations/fixtures.ts';

// The routes that list an account's inboxes only for their ids, names, channel types and bots (the per-inbox
// report rows, the CSV downloads, contactable inboxes) read the inbox summaries (AP28: one Query of ~100-byte
// items), never the whole inbox items (AP22: ~1.6 KB each, their secrets opened). Asserted on the items the
// calls get back. An account made before the summaries reads the whole items until AP29 fills and marks it.

let recorder: ReturnType<typeof scopedReads> | undefined;
function record() {
  recorder ??= scopedReads('inboxSummariesRecorder');
}

async function readsOf<T>(fn: () => Promise<T>) {
  const { result, calls: reads } = await recorder!.during(fn);
  return { result, reads, items: reads.flatMap((r) => r.items) };
}

describe('inbox summaries (AP28, AP29)', () => {
  let s: SeededAccount;
  let account: AccountRecord;
  let admin: Actor;
  let contactId: number;
  let inboxIds: number[];
  const now = Math.floor(Date.now() / 1000);
  const q = { since: String(now - 30 * 86_400), until: String(now + 60), group_by: 'inbox' };

  const wholeInboxes = (items: { pk: string; sk: string }[]) =>
    items.filter((i) => i.pk === keys.inboxesOf(s.accountId).pk && i.sk.startsWith(keys.inboxesOf(s.accountId).skPrefix));
  const summaries = (items: { pk: string; sk: string }[]) =>
    items.filter((i) => i.pk === keys.inboxSummariesOf(s.accountId).pk && i.sk.startsWith(keys.inboxSummariesOf(s.accountId).skPrefix));

  /** Every reader of the listing, once. */
  const allReaders = () =>
    Promise.all([
      summaryReport(account, 'inbox', q),
      channelSummary(account, q),
      csvReport(account, 'inboxes', q),
      botMetrics(account, q),
      firstResponseTimeDistribution(account, q),
      inboxLabelMatrix(account, q),
      outgoingMessagesCount(account, q),
      contactableInboxes(s.accountId, admin, contactId),
    ]);

  beforeAll(async () => {
    s = await seedAccount();
    record();
    account = (await getAccount(s.accountId))!;
    admin = { type: 'user', user: (await getUser(s.admin.id))!, role: 'administrator' };
    inboxIds = [];
    for (let i = 0; i < 6; i++) inboxIds.push((await newInbox(s, { type: 'api' }, { name: unique(`Inbox ${i} `) })).id);
    const bot = await newBot(s);
    ok(await s.admin.api.post(`${s.base}/inboxes/${inboxIds[0]}/set_agent_bot`, { agent_bot: bot.id }), 'set bot');
    contactId = (await newContact(s)).id;
  });

  it('the report routes and contactable inboxes read summaries, never a whole inbox item', async () => {
    const runs: Record<string, () => Promise<unknown>> = {
      'summary_reports/inbox': () => summaryReport(account, 'inbox', q),
      'summary_reports/channel': () => channelSummary(account, q),
      'reports/inboxes (CSV)': () => csvReport(account, 'inboxes', q),
      'reports/bot_metrics': () => botMetrics(account, q),
      'reports/first_response_time_distribution': () => firstResponseTimeDistribution(account, q),
      'reports/inbox_label_matrix': () => inboxLabelMatrix(account, q),
      'reports/outgoing_messages_count?group_by=inbox': () => outgoingMessagesCount(account, q),
      'contacts/{id}/contactable_inboxes': () => contactableInboxes(s.accountId, admin, contactId),
    };
    for (const [name, run] of Object.entries(runs)) {
      const { reads, items } = await readsOf(run);
      expect(wholeInboxes(items), name).toEqual([]);
      // The six summaries and the mark, in one Query.
      const listing = reads.filter((r) => summaries(r.items).length);
      expect(listing.length, name).toBe(1);
      expect(listing[0]!.command, name).toBe('QueryCommand');
      expect(summaries(listing[0]!.items).length, name).toBe(7);
      // Seven items of ~150 bytes: the Query's least.
      expect(listing[0]!.rcu, name).toBe(0.5);
    }
  });

  it('answers what the whole items say', async () => {
    const [rows, , csv, , , matrix, , contactable] = await allReaders();
    expect((rows as { id: number }[]).map((r) => r.id).sort()).toEqual([...inboxIds].sort());
    expect(csv.csv).toContain('Inbox 0 ');
    const byName = new Map((matrix.inboxes as { id: number; name: string }[]).map((i) => [i.id, i.name]));
    for (const id of inboxIds) {
      const shown = ok(await s.admin.api.get(`${s.base}/inboxes/${id}`), 'inbox');
      expect(byName.get(id)).toBe(shown.name);
      expect(contactable.payload.find((p) => p.inbox.id === id)?.inbox).toEqual({
        id,
        avatar_url: shown.avatar_url,
        channel_id: shown.channel_id,
        name: shown.name,
        channel_type: 'Channel::Api',
        provider: shown.provider ?? null,
      });
    }
    expect((await listInboxSummaries(s.accountId)).find((i) => i.id === inboxIds[0])?.agent_bot_id).toEqual(expect.any(Number));
  });

  it('an account without the mark reads the whole items until AP29 fills it; partial summaries are rewritten whole, a lost one restored', async () => {
    const mark = keys.inboxSummariesComplete(s.accountId);
    const before = await allReaders();
    // As an account made before the summaries: no mark, one inbox without its summary.
    await db().send(new DeleteCommand({ TableName: tableName(), Key: mark }));
    await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.inboxSummary(s.accountId, inboxIds[1]!) }));
    const legacy = await readsOf(allReaders);
    // The same answers (contactable inboxes' API source ids are fresh UUIDs per call: their inboxes compared).
    expect(legacy.result.slice(0, 7)).toEqual(before.slice(0, 7));
    const inboxesOf = (answers: typeof before) => answers[7].payload.map((p) => p.inbox);
    expect(inboxesOf(legacy.result)).toEqual(inboxesOf(before));
    expect(wholeInboxes(legacy.items).length).toBeGreaterThan(0);

    // A rename meanwhile writes a partial summary (no channel type): not read before the fill.
    const renamed = unique('Renamed ');
    expect((await changeInboxAttributes(s.accountId, inboxIds[1]!, { set: { name: renamed } }))?.name).toBe(renamed);
    const partial = (await db().send(new GetCommand({ TableName: tableName(), Key: keys.inboxSummary(s.accountId, inboxIds[1]!) }))).Item;
    expect(partial).toMatchObject({ name: renamed });
    expect(partial?.channel_type).toBeUndefined();
    expect((await listInboxSummaries(s.accountId)).find((i) => i.id === inboxIds[1])).toMatchObject({
      name: renamed,
      channel_type: 'Channel::Api',
    });

    expect(await fillInboxSummaries(s.accountId)).toBe(true);
    expect(await fillInboxSummaries(s.accountId)).toBe(false);
    const filled = await readsOf(() => listInboxSummaries(s.accountId));
    expect(wholeInboxes(filled.items)).toEqual([]);
    expect(filled.result.find((i) => i.id === inboxIds[1])).toEqual({
      id: inboxIds[1],
      account_id: s.accountId,
      name: renamed,
      channel_type: 'Channel::Api',
      channel_id: expect.any(Number),
      avatar_url: expect.any(String),
      provider: null,
      medium: null,
      agent_bot_id: null,
    });
    expect(filled.result.map((i) => i.id).sort()).toEqual([...inboxIds].sort());

    // A marked account missing one summary (an inbox made by the previous version during an upgrade): only it is written.
    const lost = keys.inboxSummary(s.accountId, inboxIds[2]!);
    const kept = (await db().send(new GetCommand({ TableName: tableName(), Key: lost, ConsistentRead: true }))).Item;
    await db().send(new DeleteCommand({ TableName: tableName(), Key: lost }));
    const repair = await readsOf(() => fillInboxSummaries(s.accountId));
    expect(repair.result).toBe(true);
    expect(repair.reads.filter((r) => r.command === 'TransactWriteItemsCommand').length).toBe(1);
    expect((await db().send(new GetCommand({ TableName: tableName(), Key: lost, ConsistentRead: true }))).Item).toEqual(kept);
    expect(await fillInboxSummaries(s.accountId)).toBe(false);
  });
});
