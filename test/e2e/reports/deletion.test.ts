import { beforeAll, describe, expect, it } from 'vitest';
import { eventsOf } from '#shared/domain/events/domain-events.ts';
import { recordReports } from '#shared/domain/reports/pipeline.ts';
import { rebuildAccountReports } from '#shared/domain/reports/rebuild.ts';
import { expectErrorBody, seedAccount, type SeededAccount } from '../../support/runtime.ts';
import { untilState } from '../../support/until.ts';
import { streamChanges } from '../../support/stream.ts';
import { addInboxMembers, newContact, newConversation, newInbox, ok } from '../conversations/fixtures.ts';

// A deleted conversation leaves the reports, as in Chatwoot (Conversation has_many :reporting_events,
// dependent: :destroy_async; its messages and row go too): every figure it added is taken out by the
// pipeline, its reporting events are gone, a redelivered deletion takes nothing out twice and the
// rebuild agrees.

type Ev = { name: string; conversation_id: number };

describe('reports: a deleted conversation', { timeout: 120_000 }, () => {
  let s: SeededAccount;
  let kept: Record<string, any>;
  let gone: Record<string, any>;
  let inbox: { id: number };
  let range: string;
  const V2 = () => `/api/v2/accounts/${s.accountId}`;
  const summary = async () => ok(await s.admin.api.get(`${V2()}/reports/summary?${range}&type=account`), 'summary');
  const agentRow = async () =>
    (ok(await s.admin.api.get(`${V2()}/summary_reports/agent?${range}`), 'agents') as any[]).find((a) => a.id === s.agent.id);
  const live = async () => ok(await s.admin.api.get(`${V2()}/reports/conversations?type=account`), 'live');
  const accountEvents = async () => ok(await s.admin.api.get(`${s.base}/reporting_events`), 'events').payload as Ev[];
  const msg = async (id: number, body: Record<string, unknown>, api = s.admin.api) =>
    ok(await api.post(`${s.base}/conversations/${id}/messages`, body), 'message');
  const status = async (id: number, st: string) =>
    ok(await s.admin.api.post(`${s.base}/conversations/${id}/toggle_status`, { status: st }), 'status');

  let before: Record<string, any>;
  let firstResponse: number;

  beforeAll(async () => {
    s = await seedAccount();
    const contact = await newContact(s);
    inbox = await newInbox(s, { type: 'api' });
    await addInboxMembers(s, inbox.id, [s.agent.id]);
    const now = Math.floor(Date.now() / 1000);
    range = `since=${now - 3600}&until=${now + 3600}`;

    // Kept: one incoming message, never answered (unattended).
    kept = await newConversation(s, { inbox_id: inbox.id, contact_id: contact.id });
    await msg(kept.id, { content: 'still here', message_type: 'incoming' });
    // Deleted: the agent's; answered, resolved, reopened, and waiting again when deleted.
    gone = await newConversation(s, { inbox_id: inbox.id, contact_id: contact.id });
    ok(await s.admin.api.post(`${s.base}/conversations/${gone.id}/assignments`, { assignee_id: s.agent.id }), 'assign');
    await msg(gone.id, { content: 'hello', message_type: 'incoming' });
    const reply = await msg(gone.id, { content: 'hi' }, s.agent.api);
    firstResponse = reply.created_at - gone.created_at;
    await msg(gone.id, { content: 'thanks', message_type: 'incoming' });
    await msg(gone.id, { content: 'welcome' }, s.agent.api);
    await status(gone.id, 'resolved');
    await status(gone.id, 'open');
    await msg(gone.id, { content: 'one more thing', message_type: 'incoming' });
    await untilState(accountEvents, (evs) => evs.filter((e) => e.conversation_id === gone.id).length === 4);
    before = await untilState(summary, (v) => v.incoming_messages_count === 4 && v.outgoing_messages_count === 2);
    await untilState(live, (v) => v.unattended === 2);
  }, 110_000);

  it('counts the conversation before it is deleted', async () => {
    expect(before).toMatchObject({
      conversations_count: 2,
      incoming_messages_count: 4,
      outgoing_messages_count: 2,
      resolutions_count: 1,
      avg_first_response_time: firstResponse,
    });
    expect(await agentRow()).toMatchObject({
      conversations_count: 1,
      resolved_conversations_count: 1,
      avg_first_response_time: firstResponse,
    });
    expect(
      (await accountEvents())
        .filter((e) => e.conversation_id === gone.id)
        .map((e) => e.name)
        .sort(),
    ).toEqual(['conversation_opened', 'conversation_resolved', 'first_response', 'reply_time']);
  });

  it('takes every figure of a deleted conversation out of the reports', async () => {
    expect((await s.admin.api.delete(`${s.base}/conversations/${gone.id}`)).status).toBe(200);
    const after = await untilState(summary, (v) => v.conversations_count === 1);
    expect(after).toEqual({
      conversations_count: 1,
      incoming_messages_count: 1,
      outgoing_messages_count: 0,
      avg_first_response_time: null,
      avg_resolution_time: null,
      resolutions_count: 0,
      reply_time: null,
      previous: {
        conversations_count: 0,
        incoming_messages_count: 0,
        outgoing_messages_count: 0,
        avg_first_response_time: null,
        avg_resolution_time: null,
        resolutions_count: 0,
        reply_time: null,
      },
    });
    expect(await agentRow()).toEqual({
      id: s.agent.id,
      conversations_count: 0,
      resolved_conversations_count: 0,
      avg_resolution_time: null,
      avg_first_response_time: null,
      avg_reply_time: null,
    });
    const inboxes = ok(await s.admin.api.get(`${V2()}/summary_reports/inbox?${range}`), 'inboxes') as any[];
    expect(inboxes.find((i) => i.id === inbox.id)).toMatchObject({ conversations_count: 1, resolved_conversations_count: 0 });
    expect(ok(await s.admin.api.get(`${V2()}/summary_reports/channel?${range}`), 'channel')).toEqual({
      'Channel::Api': { open: 1, resolved: 0, pending: 0, snoozed: 0, total: 1 },
    });
    expect(await untilState(live, (v) => v.unattended === 1)).toEqual({ open: 1, unattended: 1, unassigned: 1, pending: 0 });
    // Its reporting events are destroyed.
    expect((await accountEvents()).filter((e) => e.conversation_id === gone.id)).toEqual([]);
    expectErrorBody(await s.admin.api.get(`${s.base}/conversations/${gone.id}/reporting_events`), 404);
  });

  it('a redelivered deletion takes nothing out twice, and the rebuild agrees', async () => {
    const after = await summary();
    const changes = await streamChanges(
      (c) => c.type === 'conversation' && c.action === 'REMOVE' && c.oldImage?.account_id === s.accountId && c.oldImage?.id === gone.id,
    );
    expect(changes).toHaveLength(1);
    const events = eventsOf(changes[0]!);
    expect(events.map((e) => e.name)).toEqual(['conversation_deleted']);
    await recordReports(events[0]!, undefined);
    expect(await summary()).toEqual(after);
    await rebuildAccountReports(s.accountId);
    expect(await summary()).toEqual(after);
    expect(await agentRow()).toMatchObject({ conversations_count: 0, avg_first_response_time: null });
  });
});
