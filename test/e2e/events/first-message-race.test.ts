import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db, tableName } from '#shared/db/client.ts';
import * as keys from '#shared/db/keys.ts';
import { getItem, withReadCache } from '#shared/db/repositories/common.ts';
import { dispatchChange, YOUNG_MESSAGE_S } from '#shared/events/dispatch.ts';
import { pipelineCache } from '#shared/events/read-cache.ts';
import type { Change } from '#shared/model/change.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';
import { runtime, seedAccount, type SeededAccount } from '../../support/runtime.ts';

// A new conversation's first message is written just before its conversation item, so the dispatcher can meet a
// message whose conversation is not there yet. Its webhooks must not be lost: the dispatcher reads again a moment
// later, and a young message's change goes back to the queue when the conversation is still missing. A message
// whose conversation never came (a creation that died between its two writes) is told to nobody.

let n = 0;

describe('the dispatcher and a message that arrives before its conversation', () => {
  let s: SeededAccount;
  let receiver: Receiver;
  let conversationId: number;
  let messageId: number;
  let conversationItem: Record<string, unknown>;

  const change = async (createdAt?: number): Promise<Change> => {
    const key = keys.message(s.accountId, conversationId, messageId);
    const item = await getItem<Record<string, unknown>>(key, true);
    expect(item, 'stored message').toBeDefined();
    return {
      id: `race-test-${process.pid}-${Date.now()}-${++n}`,
      action: 'INSERT',
      type: 'message',
      ...key,
      at: Math.floor(Date.now() / 1000),
      newImage: {
        ...item,
        ...key,
        type: 'message',
        ...(createdAt === undefined ? { created_at: Date.now() / 1000 } : { created_at: createdAt }),
      },
    };
  };
  const dispatch = (c: Change) => withReadCache(pipelineCache, () => dispatchChange(c));
  const removeConversation = () =>
    db().send(new DeleteCommand({ TableName: tableName(), Key: keys.conversation(s.accountId, conversationId) }));
  const restoreConversation = () => db().send(new PutCommand({ TableName: tableName(), Item: conversationItem }));

  beforeAll(async () => {
    await runtime();
    s = await seedAccount();
    receiver = await startReceiver();
    const hook = await s.admin.api.post(`${s.base}/webhooks`, { url: receiver.url, name: 'race', subscriptions: ['message_created'] });
    expect(hook.status).toBe(200);
    const inbox = await s.admin.api.post(`${s.base}/inboxes`, { name: 'Race', channel: { type: 'api' } });
    const contact = await s.admin.api.post(`${s.base}/contacts`, { name: 'Race', email: `race-${process.pid}-${Date.now()}@example.com` });
    const conv = await s.admin.api.post(`${s.base}/conversations`, {
      inbox_id: inbox.body.id,
      contact_id: contact.body.payload.contact.id,
    });
    expect(conv.status).toBe(200);
    conversationId = conv.body.id;
    const m = await s.admin.api.post(`${s.base}/conversations/${conversationId}/messages`, { content: 'first words' });
    expect(m.status).toBe(200);
    messageId = m.body.id;
    // The item as stored (keys and index attributes included), to put back as it was.
    const stored = await db().send(
      new GetCommand({ TableName: tableName(), Key: keys.conversation(s.accountId, conversationId), ConsistentRead: true }),
    );
    conversationItem = stored.Item!;
    expect(conversationItem).toMatchObject({ ...keys.conversation(s.accountId, conversationId) });
  });
  afterAll(async () => {
    await restoreConversation();
    await receiver.close();
  });

  it('delivers the message once its conversation is written a moment later', async () => {
    await removeConversation();
    const c = await change();
    const pending = dispatch(c);
    await new Promise((r) => setTimeout(r, 120));
    await restoreConversation();
    const deliveries = await pending;
    expect(deliveries.map((d) => [d.event, d.target.kind])).toEqual([['message_created', 'webhook']]);
    expect(JSON.parse(deliveries[0].body)).toMatchObject({ event: 'message_created', id: messageId, content: 'first words' });
  });

  it('returns a young message’s change to the queue while its conversation is still missing', async () => {
    await removeConversation();
    try {
      await expect(dispatch(await change())).rejects.toThrow(/not written yet/);
    } finally {
      await restoreConversation();
    }
  });

  it('tells nobody of an old message whose conversation never came', async () => {
    await removeConversation();
    try {
      expect(await dispatch(await change(Date.now() / 1000 - YOUNG_MESSAGE_S - 5))).toEqual([]);
    } finally {
      await restoreConversation();
    }
  });
});
