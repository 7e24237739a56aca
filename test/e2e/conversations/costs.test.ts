import { beforeAll, describe, expect, it } from 'vitest';
import { newConversation, ok, world, type World } from './fixtures.ts';
import { callRecorder } from '../../support/calls.ts';

// What a chat message, a conversation's concurrent edits and a repeated credential cost in calls, read
// from the SDK client the handlers share (same process as the local runtime).

const WRITES = ['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand', 'TransactWriteItemsCommand'];

describe('conversation and message costs', () => {
  let w: World;
  let recorder: ReturnType<typeof callRecorder>;
  beforeAll(async () => {
    w = await world();
    recorder = callRecorder('costsTestRecorder');
  });

  it('writes a chat message and its conversation as two plain writes, and reads a recent token from memory', async () => {
    const { s, inbox, contact } = w;
    const c = await newConversation(s, { inbox_id: inbox.id, contact_id: contact.id, message: { content: 'First' } });
    ok(await s.admin.api.get(`${s.base}/conversations/${c.id}`), 'warm the credential');
    recorder.take();
    const m = ok(await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'Second' }), 'post');
    const calls = recorder.take();
    // The request's own writes (the pipeline shares the client: its mail thread item for the first reply is not the request's).
    const mine = calls.filter(
      (x) => WRITES.includes(x.command) && x.input.includes(`CONV#${s.accountId}#${c.id}`) && !x.input.includes('THREAD#'),
    );
    expect(mine.map((x) => x.command).sort()).toEqual(['BatchWriteItemCommand', 'PutItemCommand']);
    expect(calls.some((x) => x.input.includes('TOKEN#'))).toBe(false);
    const after = ok(await s.admin.api.get(`${s.base}/conversations/${c.id}`), 'show');
    expect(after.messages[0]).toMatchObject({ id: m.id, content: 'Second' });
    expect(after.last_non_activity_message).toMatchObject({ id: m.id, content: 'Second', conversation_id: c.id, account_id: s.accountId });
  });

  it('keeps every acknowledged one of 50 concurrent edits of one conversation, without a 409 or a 5xx', async () => {
    const { s, inbox, contact } = w;
    const c = await newConversation(s, { inbox_id: inbox.id, contact_id: contact.id });
    const path = `${s.base}/conversations/${c.id}`;
    const earlier: number[] = [];
    for (let i = 0; i < 15; i++) earlier.push(ok(await s.admin.api.post(`${path}/messages`, { content: `earlier ${i}` }), 'seed').id);
    const priorities = ['low', 'medium', 'high', 'urgent', 'low'];
    const attributes = Array.from({ length: 5 }, (_, i) => ({ round: i }));
    const results = await Promise.all([
      ...Array.from({ length: 25 }, (_, i) =>
        s.admin.api.post(`${path}/messages`, i % 2 ? { content: `burst ${i}` } : { content: `burst ${i}`, message_type: 'incoming' }),
      ),
      ...earlier.map((id) => s.admin.api.patch(`${path}/messages/${id}`, { status: 'delivered' })),
      ...priorities.map((priority) => s.admin.api.post(`${path}/toggle_priority`, { priority })),
      ...attributes.map((custom_attributes) => s.admin.api.post(`${path}/custom_attributes`, { custom_attributes })),
    ]);
    expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
    const posted = results.slice(0, 25).map((r) => r.body.id as number);

    const listed = ok(await s.admin.api.get(`${path}/messages?after=0`), 'messages').payload as {
      id: number;
      status: string;
      content: string;
    }[];
    const ids = new Set(listed.map((m) => m.id));
    for (const id of posted) expect(ids.has(id), `message ${id}`).toBe(true);
    for (const id of earlier) expect(listed.find((m) => m.id === id)?.status, `status of ${id}`).toBe('delivered');

    const after = ok(await s.admin.api.get(path), 'show');
    expect(priorities).toContain(after.priority);
    expect(attributes).toContainEqual(after.custom_attributes);
    // The last message shown is one of the burst, or the activity message of a priority change that
    // committed after it (they run concurrently); the unread count saw every incoming one.
    const shown = after.messages[0];
    expect(ids.has(shown.id)).toBe(true);
    if (!posted.includes(shown.id)) expect(shown).toMatchObject({ message_type: 2, content: expect.stringMatching(/priority/i) });
    expect(after.unread_count).toBe(10);
  });
});
