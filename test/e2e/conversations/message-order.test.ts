import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { runtime, seedAccount, type SeededAccount } from '../../support/runtime.ts';
import { db, tableName } from '#shared/db/client.ts';
import * as keys from '#shared/db/keys.ts';
import { nextId } from '#shared/db/ids.ts';
import { getConversation } from '#shared/db/repositories/conversations.ts';
import { mutate } from '#shared/domain/conversations/mutation.ts';
import type { MessageRecord } from '#shared/model/messages.ts';
import { newContact, newConversation, newInbox, ok } from './fixtures.ts';

// Message ids come from blocks reserved per container, and deployed every function has its own
// containers: a contact's message through the public API and an agent's reply through the account API
// take ids from different blocks. Messages list by id, so a new message's id must be above the
// conversation's last one even when this container's block is behind another container's.

/** What another container does: it reserves its own block of the message sequence (after this one's). */
async function otherContainersBlock(size = 20): Promise<number> {
  const out = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.sequence('message'),
      UpdateExpression: 'ADD #v :n',
      ExpressionAttributeNames: { '#v': 'value' },
      ExpressionAttributeValues: { ':n': size },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(out.Attributes!.value) - size + 1;
}

describe('message order across containers', () => {
  let s: SeededAccount;
  beforeAll(async () => {
    await runtime();
    s = await seedAccount();
  });

  it('a reply from a container whose id block is behind still lists after the message before it', async () => {
    const [inbox, contact] = await Promise.all([newInbox(s), newContact(s)]);
    const c = await newConversation(s, {
      inbox_id: inbox.id,
      contact_id: contact.id,
      message: { content: 'First', message_type: 'incoming' },
    });
    const first = ok(await s.admin.api.get(`${s.base}/conversations/${c.id}/messages`), 'messages').payload[0] as MessageRecord;

    // Another container writes the contact's next message with an id from its own, later block.
    const foreignId = await otherContainersBlock();
    const read = (await getConversation(s.accountId, c.id, true))!;
    const foreign: MessageRecord = {
      ...read.last_message!,
      id: foreignId,
      content: 'From the other container',
      created_at: first.created_at + 1,
    };
    await mutate(read, (cur) => ({ next: { ...cur, version: cur.version + 1 }, messages: [foreign], result: undefined }));
    expect((await getConversation(s.accountId, c.id, true))!.last_message!.id).toBe(foreignId);

    // This container's block (which gave `first` its id) is behind the foreign id: the reply goes above it.
    const reply = ok(await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'Reply' }), 'reply');
    expect(reply.id).toBeGreaterThan(foreignId);
    const listed = ok(await s.admin.api.get(`${s.base}/conversations/${c.id}/messages`), 'messages').payload.map(
      (m: { content: string }) => m.content,
    );
    expect(listed).toEqual(['First', 'From the other container', 'Reply']);
  });

  it('nextId leaves a block that is behind the floor, and uses what of it is above', async () => {
    const seq = `order-test-${process.pid}-${Date.now()}`;
    const a = await nextId(seq);
    expect(await nextId(seq)).toBe(a + 1);
    // Within the block: the ids up to the floor are skipped.
    expect(await nextId(seq, a + 5)).toBe(a + 6);
    // Beyond the block, with another container's reservation in between: a fresh block above the floor.
    const other = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.sequence(seq),
        UpdateExpression: 'ADD #v :n',
        ExpressionAttributeNames: { '#v': 'value' },
        ExpressionAttributeValues: { ':n': 50 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const floor = Number(other.Attributes!.value);
    const next = await nextId(seq, floor);
    expect(next).toBe(floor + 1);
    expect(await nextId(seq)).toBe(next + 1);
    // A floor above everything the sequence gave out is reached over in one more reservation.
    const far = await nextId(seq, next + 10_000);
    expect(far).toBeGreaterThan(next + 10_000);
  });
});
