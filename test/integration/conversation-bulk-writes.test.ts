import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { db, tableName } from '#shared/db/client.ts';
import * as keys from '#shared/db/keys.ts';
import { conversationOf, getConversation, newConversationWrites } from '#shared/db/repositories/conversations.ts';
import { listMessages } from '#shared/db/repositories/messages.ts';
import { runtime, seedAccount, type SeededAccount } from '../support/runtime.ts';
import { newContact, newConversation, newInbox, newTeam } from '../e2e/conversations/fixtures.ts';

// The bench's scale loader writes new conversations by newConversationWrites (bench/scale.ts), not through the
// API: its items must be the ones `POST /conversations` stores, or the figures measured on them would drift.

describe('newConversationWrites', () => {
  let s: SeededAccount;
  beforeAll(async () => {
    await runtime();
    s = await seedAccount();
  });

  const stored = async (key: { pk: unknown; sk: unknown }) =>
    (await db().send(new GetCommand({ TableName: tableName(), Key: { pk: key.pk, sk: key.sk }, ConsistentRead: true }))).Item;

  it('puts the items, and makes the counter and state updates, that creating the conversation stored', async () => {
    const [inbox, contact, team] = await Promise.all([newInbox(s), newContact(s), newTeam(s, [s.agent.id])]);
    const made = await newConversation(s, {
      inbox_id: inbox.id,
      contact_id: contact.id,
      assignee_id: s.agent.id,
      team_id: team.id,
      message: { content: 'Where is my parcel?', message_type: 'incoming' },
    });
    const conversation = (await getConversation(s.accountId, made.id, true))!;
    const messages = await listMessages(s.accountId, made.id, { limit: 10 });
    expect(messages).toHaveLength(1);

    const { puts, updates } = newConversationWrites(conversation, messages);
    // The contact link, the message, its `q` tail item, the conversation with its activity-index keys.
    expect(puts.map((p) => String(p.pk).split('#')[0])).toEqual(['CCONV', 'CONV', 'STAIL', 'CONV']);
    for (const item of puts) expect(await stored(item as { pk: unknown; sk: unknown })).toEqual(item);
    expect(conversationOf(puts.at(-1))).toEqual(conversation);

    // Its inbox and account counters (+1 each) and its state block (the agent and the team).
    expect(updates).toHaveLength(3);
    for (const { item } of updates.slice(0, 2)) {
      expect(item.Update!.UpdateExpression).toMatch(/^ADD #n :d SET /);
      expect(item.Update!.ExpressionAttributeValues![':d']).toBe(1);
      expect((await stored(item.Update!.Key as { pk: unknown; sk: unknown }))?.count).toBe(1);
    }
    const state = updates[2].item.Update!;
    expect(state.Key).toEqual(keys.conversationState(s.accountId, made.id));
    expect(state.ExpressionAttributeValues![':v']).toBe(`${s.agent.id}|${team.id}`);
    expect((await stored(keys.conversationState(s.accountId, made.id)))?.[state.ExpressionAttributeNames!['#s']]).toBe(
      `${s.agent.id}|${team.id}`,
    );
  });
});
