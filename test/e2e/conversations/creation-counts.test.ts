import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, seedAccount, type SeededAccount } from '../../support/runtime.ts';
import { callRecorder } from '../../support/calls.ts';
import { db, tableName } from '#shared/db/client.ts';
import * as keys from '#shared/db/keys.ts';
import { countCreation, marksOf } from '#shared/db/repositories/counts.ts';
import { nextDisplayId } from '#shared/db/repositories/conversations.ts';
import { newContact, newConversation, newInbox, ok } from './fixtures.ts';

// A plain new conversation is counted without a transaction: its counter (with a creation mark), then the
// conversation. Counts stay exact under concurrent creations, the marks leave with the conversation's first
// change of combination, its deletion or a later settlement, and a creation that stopped between the two
// writes (a crash) has its count taken back by a later creation on the same counter.

const WRITES = ['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand', 'TransactWriteItemsCommand'];
const DAY = 86_400;

describe('conversation creation counts', () => {
  let s: SeededAccount;
  let contact: { id: number };
  beforeAll(async () => {
    s = await seedAccount();
    contact = await newContact(s);
  });

  const combo = (inboxId: number, status: 'open' | 'resolved' = 'open') => ({
    inbox_id: inboxId,
    team_id: null,
    status,
    assignee_id: null,
  });
  const counter = async (inboxId: number, status: 'open' | 'resolved' = 'open') =>
    (
      await db().send(
        new GetCommand({
          TableName: tableName(),
          Key: keys.conversationCounter(s.accountId, combo(inboxId, status)),
          ConsistentRead: true,
        }),
      )
    ).Item ?? {};
  const meta = async (inboxId: number) =>
    ok(await s.admin.api.get(`${s.base}/conversations/meta?inbox_id=${inboxId}&status=all`), 'meta').meta;
  const create = (inboxId: number) => newConversation(s, { inbox_id: inboxId, contact_id: contact.id, message: { content: 'Hello' } });

  it('counts 50 concurrent creations exactly, each with a counter update and a conversation put, and settles their marks', async () => {
    const inbox = await newInbox(s);
    const recorder = callRecorder('creationCountsRecorder');
    recorder.take();
    const one = await create(inbox.id);
    const writes = recorder.take().filter((x) => WRITES.includes(x.command));
    expect(writes.filter((x) => x.input.includes(`"CNT#${s.accountId}"`)).map((x) => x.command)).toEqual(['UpdateItemCommand']);
    expect(
      writes.filter((x) => x.input.includes(`"CONV#${s.accountId}#${one.id}"`) && x.input.includes('"sk":"CONV"')).map((x) => x.command),
    ).toEqual(['PutItemCommand']);

    const created = [one, ...(await Promise.all(Array.from({ length: 49 }, () => create(inbox.id))))];
    expect(new Set(created.map((c) => c.id)).size).toBe(50);
    expect(await meta(inbox.id)).toMatchObject({ all_count: 50, unassigned_count: 50 });
    expect((await counter(inbox.id)).count).toBe(50);

    // Four creations one after another: one of them settles (its mark count is a multiple of four past 16).
    for (let i = 0; i < 4; i++) await create(inbox.id);
    const after = await counter(inbox.id);
    expect(after.count).toBe(54);
    expect(marksOf(after).length).toBeLessThan(16);
    expect(await meta(inbox.id)).toMatchObject({ all_count: 54, unassigned_count: 54 });
  });

  it('takes the creation mark off with the first change of status, and with a deletion', async () => {
    const inbox = await newInbox(s);
    const [a, b] = [await create(inbox.id), await create(inbox.id)];
    expect(
      marksOf(await counter(inbox.id))
        .map((m) => m.id)
        .sort(),
    ).toEqual([a.id, b.id].sort());
    ok(await s.admin.api.post(`${s.base}/conversations/${a.id}/toggle_status`, { status: 'resolved' }), 'resolve');
    expect(marksOf(await counter(inbox.id)).map((m) => m.id)).toEqual([b.id]);
    expect(marksOf(await counter(inbox.id, 'resolved'))).toEqual([]);
    ok(await s.admin.api.delete(`${s.base}/conversations/${b.id}`), 'delete');
    const open = await counter(inbox.id);
    expect(marksOf(open)).toEqual([]);
    expect(open.count).toBe(0);
    expect((await counter(inbox.id, 'resolved')).count).toBe(1);
    expect(await meta(inbox.id)).toMatchObject({ all_count: 1 });
  });

  it('takes back the count of a creation that stopped after its counter write, once, at a later creation', async () => {
    const inbox = await newInbox(s);
    const first = await create(inbox.id);
    // What a crash between the two writes leaves: the counter and its mark, no conversation (two days ago).
    const t = Math.floor(Date.now() / 1000);
    const lost = await nextDisplayId(s.accountId);
    await countCreation(s.accountId, { id: lost, ...combo(inbox.id) }, t - 2 * DAY);
    // And the first conversation's mark as if made then too: it exists, so its mark just goes.
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.conversationCounter(s.accountId, combo(inbox.id)),
        UpdateExpression: 'SET #m = :at',
        ExpressionAttributeNames: { '#m': `c${first.id}` },
        ExpressionAttributeValues: { ':at': t - 2 * DAY },
      }),
    );
    expect(await meta(inbox.id)).toMatchObject({ all_count: 2 });
    expectErrorBody(await s.admin.api.get(`${s.base}/conversations/${lost}`), 404);

    const next = await create(inbox.id);
    const settled = await counter(inbox.id);
    expect(settled.count).toBe(2);
    expect(marksOf(settled)).toEqual([]);
    expect(await meta(inbox.id)).toMatchObject({ all_count: 2 });
    const listed = ok(await s.admin.api.get(`${s.base}/conversations?inbox_id=${inbox.id}&status=all`), 'list').data;
    expect(listed.meta.all_count).toBe(2);
    expect(listed.payload.map((c: { id: number }) => c.id).sort()).toEqual([first.id, next.id].sort());

    // Nothing is taken back twice: the next creation counts on from there.
    await create(inbox.id);
    expect((await counter(inbox.id)).count).toBe(3);
    expect(await meta(inbox.id)).toMatchObject({ all_count: 3 });
  });
});
