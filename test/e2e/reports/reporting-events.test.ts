import { beforeAll, describe, expect, it } from 'vitest';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '#shared/db/client.ts';
import * as keys from '#shared/db/keys.ts';
import { queryListing } from '#shared/db/repositories/report-listing.ts';
import { readPendingReports } from '#shared/db/repositories/report-logs.ts';
import { foldAll } from '#shared/domain/reports/fold.ts';
import { seedAccount, type SeededAccount } from '../../support/runtime.ts';
import { untilState } from '../../support/until.ts';
import { addInboxMembers, newContact, newConversation, newInbox, ok } from '../conversations/fixtures.ts';

// GET /api/v1/accounts/{id}/reporting_events over the three places an account's reporting events are listed
// from (docs/reports.md): the pending logs, the folds' listing items per UTC hour, and the index copies written
// before those (an event indexed so is put here directly); each event once, newest first, filtered and
// paginated as before; a deleted conversation's events leave it whether folded or pending.

type Ev = { id: number; name: string; conversation_id: number; created_at: number; inbox_id: number };

describe('reporting events listing: folded, pending and old-index events together', { timeout: 120_000 }, () => {
  let s: SeededAccount;
  let inbox: { id: number };
  let contact: { id: number };
  const list = async (query = '') => ok(await s.admin.api.get(`${s.base}/reporting_events${query}`), 'events');
  const msg = async (id: number, body: Record<string, unknown>, api = s.admin.api) =>
    ok(await api.post(`${s.base}/conversations/${id}/messages`, body), 'message');
  const status = async (id: number, st: string) =>
    ok(await s.admin.api.post(`${s.base}/conversations/${id}/toggle_status`, { status: st }), 'status');
  /** A conversation answered once and resolved: first_response and conversation_resolved. */
  const answered = async () => {
    const c = await newConversation(s, { inbox_id: inbox.id, contact_id: contact.id });
    await msg(c.id, { content: 'hello', message_type: 'incoming' });
    await msg(c.id, { content: 'hi' }, s.agent.api);
    await status(c.id, 'resolved');
    return c;
  };
  const until = (n: number) => untilState(list, (l) => l.meta.count === n);
  const newestFirst = (evs: Ev[]) => [...evs].sort((a, b) => b.created_at - a.created_at || b.id - a.id);

  beforeAll(async () => {
    s = await seedAccount();
    contact = await newContact(s);
    inbox = await newInbox(s, { type: 'api' });
    await addInboxMembers(s, inbox.id, [s.agent.id]);
  }, 60_000);

  it('lists the three sources once each, newest first, filtered; a deletion takes its events out', async () => {
    const c1 = await answered();
    const c2 = await answered();
    const first = (await until(4)).payload as Ev[];
    // Folded: the listing items hold them, nothing is pending.
    await foldAll(s.accountId);
    expect((await readPendingReports(s.accountId)).logs).toEqual([]);
    const items = await queryListing(s.accountId, '1970010100', '9999123123', true);
    expect(items.flatMap((i) => i.events)).toHaveLength(4);
    // An event indexed before the listing (its conversation c1's, an hour earlier).
    const at = c1.created_at - 3600;
    const oldId = 1_900_000_000 + s.accountId;
    const old: Ev & Record<string, unknown> = {
      id: oldId,
      name: 'conversation_opened',
      value: 0,
      value_in_business_hours: 0,
      account_id: s.accountId,
      inbox_id: inbox.id,
      user_id: null,
      conversation_id: c1.id,
      event_start_time: at,
      event_end_time: at,
      created_at: at,
      updated_at: at,
    };
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.reportingEvent(s.accountId, c1.id, 'old-listing-test', 0),
          ...keys.reportingEventIndex(s.accountId, at, oldId),
          type: 'reporting_event',
          ...old,
          fact_id: 'old-listing-test',
          contributions: [],
        },
      }),
    );
    // Pending: a third conversation, not folded (the dispatcher folds only logs older than its margin).
    const c3 = await answered();
    const all = await until(7);
    const payload = all.payload as Ev[];
    expect(all.meta).toEqual({ count: 7, current_page: 1, total_pages: 1 });
    expect(new Set(payload.map((e) => e.id)).size).toBe(7);
    expect(payload).toEqual(newestFirst(payload));
    expect(payload.at(-1)).toEqual({
      ...old,
      event_start_time: new Date(at * 1000).toISOString(),
      event_end_time: new Date(at * 1000).toISOString(),
    });
    for (const e of first) expect(payload).toContainEqual(e);
    expect(
      payload
        .filter((e) => e.conversation_id === c3.id)
        .map((e) => e.name)
        .sort(),
    ).toEqual(['conversation_resolved', 'first_response']);
    expect((await list('?event_name=conversation_resolved')).payload.map((e: Ev) => e.conversation_id)).toEqual([c3.id, c2.id, c1.id]);
    const since = payload[2]!.created_at;
    const ranged = (await list(`?since=${since}`)).payload as Ev[];
    expect(ranged).toEqual(payload.filter((e) => e.created_at >= since));
    // Deleting c1 (folded and old-index events) and c3 (pending): only c2's stay, before and after a fold.
    for (const c of [c1, c3]) expect((await s.admin.api.delete(`${s.base}/conversations/${c.id}`)).status).toBe(200);
    const left = (await until(2)).payload as Ev[];
    expect(left.map((e) => e.conversation_id)).toEqual([c2.id, c2.id]);
    await foldAll(s.accountId);
    expect((await list()).payload).toEqual(left);
    expect((await queryListing(s.accountId, '1970010100', '9999123123', true)).flatMap((i) => i.events)).toHaveLength(2);
  });
});
