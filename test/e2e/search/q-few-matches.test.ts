import { beforeAll, describe, expect, it } from 'vitest';
import * as keys from '#shared/db/keys.ts';
import { callRecorder } from '../../support/calls.ts';
import { seedAccount, unique, type SeededAccount } from '../../support/runtime.ts';
import { newContact, newConversation, newInbox, ok } from '../conversations/fixtures.ts';

// What a `q` page reads when the matches are few. `conversations/search` shows each conversation with its
// matching messages: the conversation item carries its last message (and last chat message), kept in step
// with every change of it, so a match that is one of those is taken from there and only the other matches
// are read. And the page's conversations, read anyway, give the counts: no state items (AP77) are read.

describe('q pages with few matches', () => {
  let s: SeededAccount;
  let recorder: ReturnType<typeof callRecorder>;
  let conversationId: number;
  let older: { id: number };
  let last: { id: number };
  const word = unique('zq')
    .replace(/[^a-z0-9]/gi, '')
    .toLowerCase();

  beforeAll(async () => {
    s = await seedAccount();
    recorder = callRecorder('searchMessagesReadRecorder');
    const inbox = await newInbox(s);
    const contact = await newContact(s);
    conversationId = (await newConversation(s, { inbox_id: inbox.id, contact_id: contact.id })).id;
    const say = async (content: string, message_type: string) =>
      ok(await s.admin.api.post(`${s.base}/conversations/${conversationId}/messages`, { content, message_type }), 'message') as {
        id: number;
      };
    older = await say(`first ${word} from the contact`, 'incoming');
    await say('nothing to find here', 'outgoing');
    last = await say(`second ${word} from the agent`, 'outgoing');
  });

  const search = async () => {
    recorder.take();
    const body = ok(await s.admin.api.get(`${s.base}/conversations/search?q=${word}`), 'search');
    const messageReads = recorder
      .take()
      .filter(
        (c) =>
          c.command === 'BatchGetItemCommand' &&
          c.input.includes(`"${keys.conversation(s.accountId, conversationId).pk}"`) &&
          c.input.includes('MSG#'),
      );
    return { payload: body.payload as any[], messageReads };
  };

  it('answers both matches, oldest first, and reads only the one that is not the last message', async () => {
    const { payload, messageReads } = await search();
    expect(payload.map((c) => c.id)).toEqual([conversationId]);
    expect(payload[0].messages.map((m: any) => [m.id, m.content])).toEqual([
      [older.id, `first ${word} from the contact`],
      [last.id, `second ${word} from the agent`],
    ]);
    expect(messageReads).toHaveLength(1);
    expect(messageReads[0].input).toContain(keys.message(s.accountId, conversationId, older.id).sk);
    expect(messageReads[0].input).not.toContain(keys.message(s.accountId, conversationId, last.id).sk);
  });

  it('a status update of the carried message refreshes its copy: the answer is the same and still reads only the older match', async () => {
    const before = (await search()).payload;
    ok(await s.admin.api.patch(`${s.base}/conversations/${conversationId}/messages/${last.id}`, { status: 'read' }), 'status');
    const conversation = ok(await s.admin.api.get(`${s.base}/conversations/${conversationId}`), 'conversation');
    expect(conversation.messages.at(-1)).toMatchObject({ id: last.id, status: 'read' });
    const { payload, messageReads } = await search();
    expect(payload).toEqual(before);
    expect(messageReads).toHaveLength(1);
    expect(messageReads[0].input).not.toContain(keys.message(s.accountId, conversationId, last.id).sk);
  });

  it('reads nothing of the messages when every match is carried', async () => {
    const only = unique('yk')
      .replace(/[^a-z0-9]/gi, '')
      .toLowerCase();
    const m = ok(await s.admin.api.post(`${s.base}/conversations/${conversationId}/messages`, { content: `just ${only}` }), 'message');
    const body = ok(await s.admin.api.get(`${s.base}/conversations/search?q=${only}`), 'search');
    expect(body.payload[0].messages.map((x: any) => x.id)).toEqual([m.id]);
    recorder.take();
    ok(await s.admin.api.get(`${s.base}/conversations/search?q=${only}`), 'search again');
    const reads = recorder
      .take()
      .filter((c) => c.command === 'BatchGetItemCommand' && c.input.includes(keys.message(s.accountId, conversationId, m.id).sk));
    expect(reads).toEqual([]);
  });

  it('a list with few matches counts them from their conversations, reading no state items, and follows an assignment and a deletion', async () => {
    const inbox = await newInbox(s);
    const contact = await newContact(s);
    const other = (await newConversation(s, { inbox_id: inbox.id, contact_id: contact.id, assignee_id: s.admin.id })).id;
    ok(await s.admin.api.post(`${s.base}/conversations/${other}/messages`, { content: `third ${word}` }), 'message');
    const list = async () => {
      recorder.take();
      const body = ok(await s.admin.api.get(`${s.base}/conversations?q=${word}`), 'list').data;
      const calls = recorder.take();
      const stateReads = calls.filter((c) => c.input.includes(`"${keys.conversationStatePartition(s.accountId)}"`));
      // The assignee and their membership come in one BatchGet, not one GetItem each (or from the refs
      // cache, test/e2e/conversations/refs-cache.test.ts, when an earlier page read them).
      const membershipKey = keys.accountUser(s.accountId, s.admin.id);
      const membershipReads = calls.filter((c) => c.input.includes(`"${membershipKey.pk}"`) && c.input.includes(`"${membershipKey.sk}"`));
      expect(membershipReads.length).toBeLessThanOrEqual(1);
      for (const read of membershipReads) {
        expect(read.command).toBe('BatchGetItemCommand');
        expect(read.input).toContain(`"${keys.user(s.admin.id).pk}"`);
      }
      return { meta: body.meta, ids: (body.payload as any[]).map((c) => c.id), stateReads };
    };
    let got = await list();
    expect(got.meta).toEqual({ mine_count: 1, unassigned_count: 1, assigned_count: 1, all_count: 2 });
    expect(got.ids).toEqual([other, conversationId]);
    expect(got.stateReads).toEqual([]);
    // The same counts as meta?q=, which reads the state items.
    expect(ok(await s.admin.api.get(`${s.base}/conversations/meta?q=${word}`), 'meta').meta).toEqual(got.meta);

    ok(await s.admin.api.post(`${s.base}/conversations/${conversationId}/assignments`, { assignee_id: s.agent.id }), 'assign');
    got = await list();
    expect(got.meta).toEqual({ mine_count: 1, unassigned_count: 0, assigned_count: 2, all_count: 2 });
    ok(await s.admin.api.delete(`${s.base}/conversations/${other}`), 'delete');
    got = await list();
    expect(got.meta).toEqual({ mine_count: 0, unassigned_count: 0, assigned_count: 1, all_count: 1 });
    expect(got.ids).toEqual([conversationId]);
    expect(got.stateReads).toEqual([]);
    expect(ok(await s.admin.api.get(`${s.base}/conversations/meta?q=${word}`), 'meta').meta).toEqual(got.meta);
  });
});
