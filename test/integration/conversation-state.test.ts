import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { db, tableName } from '#shared/db/client.ts';
import * as keys from '#shared/db/keys.ts';
import { getConversationStates, slotOf } from '#shared/db/repositories/conversation-state.ts';
import { runtime, seedAccount, type SeededAccount } from '../support/runtime.ts';
import { newContact, newConversation, newInbox, newTeam, ok } from '../e2e/conversations/fixtures.ts';

// AP77's blocks name each conversation by a one-character slot (display id mod 64). Blocks written before
// that named it `c<display id>`: they still read, a change moves the conversation to its slot, and the
// counts of `q` agree either way.

describe('conversation state blocks', () => {
  let s: SeededAccount;
  beforeAll(async () => {
    await runtime();
    s = await seedAccount();
  });

  const block = async (id: number) =>
    (await db().send(new GetCommand({ TableName: tableName(), Key: keys.conversationState(s.accountId, id), ConsistentRead: true })))
      .Item ?? {};

  it('keeps assignee and team under the slot, across blocks, and reads the older names', async () => {
    const [inbox, contact, team] = await Promise.all([newInbox(s), newContact(s), newTeam(s, [s.agent.id])]);
    const created: Record<string, any>[] = [];
    // Enough conversations to span two blocks, so that the same slot appears in both.
    for (let i = 0; i < 66; i++) created.push(await newConversation(s, { inbox_id: inbox.id, contact_id: contact.id }));
    const [a, b] = [created[0].id, created.find((c) => c.id % 64 === created[0].id % 64 && c.id !== created[0].id)!.id];
    expect(slotOf(a)).toBe(slotOf(b));
    ok(await s.admin.api.post(`${s.base}/conversations/${a}/assignments`, { assignee_id: s.agent.id }), 'assign a');
    ok(await s.admin.api.post(`${s.base}/conversations/${b}/assignments`, { team_id: team.id }), 'team b');
    expect((await block(a))[slotOf(a)]).toBe(`${s.agent.id}|`);
    expect((await block(b))[slotOf(b)]).toBe(`|${team.id}`);
    expect((await block(a))[`c${a}`]).toBeUndefined();
    const states = await getConversationStates(s.accountId, [a, b, created[1].id]);
    expect(states.get(a)).toEqual({ assignee_id: s.agent.id, team_id: null, deleted: false });
    expect(states.get(b)).toEqual({ assignee_id: null, team_id: team.id, deleted: false });
    expect(states.get(created[1].id)).toEqual({ assignee_id: null, team_id: null, deleted: false });

    // A block as written before slots: the conversation under `c<id>` only.
    const c = created[2].id;
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.conversationState(s.accountId, c),
        UpdateExpression: 'SET #c = :v',
        ExpressionAttributeNames: { '#c': `c${c}` },
        ExpressionAttributeValues: { ':v': `${s.admin.id}|${team.id}` },
      }),
    );
    expect((await getConversationStates(s.accountId, [c])).get(c)).toEqual({ assignee_id: s.admin.id, team_id: team.id, deleted: false });
    // Its next change writes the slot and drops the older name.
    ok(await s.admin.api.post(`${s.base}/conversations/${c}/assignments`, { assignee_id: s.agent.id }), 'assign c');
    const after = await block(c);
    expect(after[`c${c}`]).toBeUndefined();
    expect(after[slotOf(c)]).toBe(`${s.agent.id}|`);
    expect((await getConversationStates(s.accountId, [c])).get(c)).toEqual({ assignee_id: s.agent.id, team_id: null, deleted: false });
    // Unassigning removes the slot; deleting marks it.
    ok(await s.admin.api.post(`${s.base}/conversations/${c}/assignments`, { assignee_id: null }), 'unassign c');
    expect((await block(c))[slotOf(c)]).toBeUndefined();
    ok(await s.admin.api.delete(`${s.base}/conversations/${a}`), 'delete a');
    expect((await getConversationStates(s.accountId, [a])).get(a)).toMatchObject({ deleted: true });
  });
});
