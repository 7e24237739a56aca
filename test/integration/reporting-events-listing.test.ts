import { beforeAll, describe, expect, it } from 'vitest';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '#shared/db/client.ts';
import * as keys from '#shared/db/keys.ts';
import { queryListing } from '#shared/db/repositories/report-listing.ts';
import {
  claimFold,
  getFoldState,
  listConversationFacts,
  queryLogs,
  recordFacts,
  removeConversationReportItems,
  type FactWrite,
} from '#shared/db/repositories/report-logs.ts';
import { foldAll } from '#shared/domain/reports/fold.ts';
import { foldReportingEvents, listAccountEvents } from '#shared/domain/reports/listing.ts';
import { listingHour } from '#shared/model/reporting-event-listing.ts';
import type { ReportingEventRecord } from '#shared/model/reports.ts';
import { runtime } from '../support/runtime.ts';

// The account's reporting events listing (AP371, AP372 with AP211 and the old index AP205) on DynamoDB Local:
// new reporting events carry no index copy; they are listed from their batch's log until a fold writes them
// to its listing item of their UTC hour; events indexed before the listing are read beside them, each event
// once, newest first; a fold retried after a crash lists nothing twice; a deleted conversation's events leave
// the listing while its deletion is pending, and once folded.

const hour = Math.floor(Date.now() / 1000 / 3600) * 3600 - 2 * 3600;
let n = 0;
const newAccount = () => 850_000_000 + Math.floor(Math.random() * 1_000_000) + n++ * 1_000_000;
let ids = 0;
const base = 930_000_000 + Math.floor(Math.random() * 1_000_000) * 10;

const event = (accountId: number, conversationId: number, at: number, user: number | null = 3): ReportingEventRecord => ({
  id: base + ids++,
  name: 'reply_time',
  value: 42,
  value_in_business_hours: 12.5,
  account_id: accountId,
  inbox_id: 7,
  user_id: user,
  conversation_id: conversationId,
  event_start_time: at - 42,
  event_end_time: at,
  created_at: at,
  updated_at: at,
});

/** A reply's write: its reporting event is its fact. */
const reply = (accountId: number, e: ReportingEventRecord): FactWrite => ({
  fact: {
    id: `listing-test:${e.id}`,
    account_id: accountId,
    conversation_id: e.conversation_id,
    contributions: [{ series: keys.reportSeries.account(), at: e.created_at, figures: { rt_n: 1, rt_s: 42, rt_b: 12 } }],
    created_at: e.created_at,
  },
  reportingEvents: [e],
});

/** A reporting event as written before the listing: among its conversation's facts, with its index copy. */
const putIndexed = (accountId: number, e: ReportingEventRecord) =>
  db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...keys.reportingEvent(accountId, e.conversation_id, `old:${e.id}`, 0),
        ...keys.reportingEventIndex(accountId, e.created_at, e.id),
        type: 'reporting_event',
        ...e,
        fact_id: `old:${e.id}`,
        contributions: [],
      },
    }),
  );

const ALL: [number, number] = [0, 99_999_999_999];
const listed = async (accountId: number, [since, until] = ALL) => (await listAccountEvents(accountId, since, until)).map((e) => e.id);
const newestFirst = (list: ReportingEventRecord[]) => [...list].sort((a, b) => b.created_at - a.created_at || b.id - a.id).map((e) => e.id);

describe('reporting events listing: logs, folded hour items and the old index', () => {
  beforeAll(async () => {
    await runtime();
  });

  it('writes no index copy, and lists folded, pending and old-index events together, once each, newest first', async () => {
    const a = newAccount();
    const old = [event(a, 1, hour + 10), event(a, 2, hour + 3700)];
    for (const e of old) await putIndexed(a, e);
    const folded = [event(a, 1, hour + 20), event(a, 3, hour + 3600 + 5, null), event(a, 2, hour + 7300)];
    await recordFacts(
      a,
      folded.slice(0, 2).map((e) => reply(a, e)),
    );
    await recordFacts(a, [reply(a, folded[2]!)]);
    // The new writes' items: no index copy.
    const [stored] = await listConversationFacts(a, 3);
    expect(stored).toMatchObject({ type: 'reporting_event', id: folded[1]!.id });
    expect(stored).not.toHaveProperty('gsi1pk');
    // Pending: listed from the logs, every field as written.
    expect(await listed(a)).toEqual(newestFirst([...old, ...folded]));
    expect((await listAccountEvents(a, ...ALL)).find((e) => e.id === folded[1]!.id)).toEqual(folded[1]);
    await foldAll(a);
    // Folded: one listing item per UTC hour of the events (three hours), none pending.
    const items = await queryListing(a, listingHour(0), listingHour(99_999_999_999), true);
    expect(items.map((i) => i.key.sk.split('#')[0])).toEqual([listingHour(hour), listingHour(hour + 3600), listingHour(hour + 7200)]);
    expect(items.map((i) => i.events.length)).toEqual([1, 1, 1]);
    const pendingNew = [event(a, 4, hour + 30), event(a, 1, hour + 3650)];
    await recordFacts(
      a,
      pendingNew.map((e) => reply(a, e)),
    );
    const everything = [...old, ...folded, ...pendingNew];
    expect(await listed(a)).toEqual(newestFirst(everything));
    expect((await listAccountEvents(a, ...ALL)).find((e) => e.id === folded[1]!.id)).toEqual(folded[1]);
    // A range: the events created in [since, until], bounds included, from every source.
    const range: [number, number] = [hour + 20, hour + 3650];
    expect(await listed(a, range)).toEqual(newestFirst(everything.filter((e) => e.created_at >= range[0] && e.created_at <= range[1])));
    // An old-index event that a fold also listed (not written by this code, but a rebuild could): once.
    await putIndexed(a, folded[0]!);
    expect(await listed(a)).toEqual(newestFirst(everything));
  });

  it('a fold that dies after its listing items and is resumed lists each event once, during and after', async () => {
    const a = newAccount();
    const events = [event(a, 1, hour + 1), event(a, 2, hour + 2)];
    await recordFacts(
      a,
      events.map((e) => reply(a, e)),
    );
    const state = await getFoldState(a);
    const logs = await queryLogs(a, state.wm, undefined, { consistent: true });
    const end = logs.at(-1)!.sk;
    expect(await claimFold(a, state, end)).toBe(true);
    expect(await foldReportingEvents(a, logs, end)).toBe(1);
    // Dead before the watermark moved: the events are in a listing item and in the pending logs, listed once.
    expect(await listed(a)).toEqual(newestFirst(events));
    // Resumed (the same end): its item is there, put again only if new.
    expect(await foldReportingEvents(a, logs, end)).toBe(0);
    await foldAll(a);
    expect((await queryListing(a, listingHour(hour), listingHour(hour), true)).map((i) => i.events.length)).toEqual([2]);
    expect(await listed(a)).toEqual(newestFirst(events));
  });

  it("takes a deleted conversation's events out: pending, folded before, folded with the deletion, and old-index", async () => {
    const a = newAccount();
    const old = event(a, 5, hour + 1);
    await putIndexed(a, old);
    const keptEvent = event(a, 6, hour + 2);
    const foldedBefore = event(a, 5, hour + 3);
    await recordFacts(a, [reply(a, keptEvent), reply(a, foldedBefore)]);
    await foldAll(a);
    const pending = event(a, 5, hour + 4);
    await recordFacts(a, [reply(a, pending)]);
    expect(await listed(a)).toEqual(newestFirst([old, keptEvent, foldedBefore, pending]));
    // The deletion, as the pipeline's: its log carries the conversation's reporting events as removed, then the
    // index copies go.
    const facts = (await listConversationFacts(a, 5)).filter((f) => f.type === 'reporting_event');
    expect(facts).toHaveLength(3);
    await recordFacts(
      a,
      [],
      [],
      undefined,
      facts.map((f) => ({ id: Number(f.id), created_at: Number(f.created_at) })),
    );
    await removeConversationReportItems(a, 5, facts);
    // Pending deletion: left out of every source.
    expect(await listed(a)).toEqual([keptEvent.id]);
    await foldAll(a);
    // Folded: the earlier fold's item rewritten without it, the pending event never written.
    const items = await queryListing(a, listingHour(hour), listingHour(hour), true);
    expect(items.flatMap((i) => i.events.map((e) => Number(e.split(',')[0])))).toEqual([keptEvent.id]);
    expect(await listed(a)).toEqual([keptEvent.id]);
    const oldItem = await db().send(new GetCommand({ TableName: tableName(), Key: keys.reportingEvent(a, 5, `old:${old.id}`, 0) }));
    expect(oldItem.Item).not.toHaveProperty('gsi1pk');
  });
});
