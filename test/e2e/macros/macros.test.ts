import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, seedAccount, type SeededAccount, fieldsOf } from '../../support/runtime.ts';
import { newBot, newConversation, newInbox, ok, world, type World } from '../conversations/fixtures.ts';

// The machine running the suite may be busy: these wait on scrypt and on the pipeline.
describe('macros', { timeout: 120_000 }, () => {
  let w: World;
  let s: SeededAccount;
  let other: SeededAccount;
  beforeAll(async () => {
    w = await world();
    s = w.s;
    other = await seedAccount();
    ok(await s.admin.api.post(`${s.base}/labels`, { title: 'billing' }), 'label');
  });

  it("CRUD with visibility: admins make global macros, an agent's are personal and private to them", async () => {
    const global = await s.admin.api.post(`${s.base}/macros`, {
      name: 'Escalate',
      visibility: 'global',
      actions: [{ action_name: 'change_priority', action_params: ['high'] }],
    });
    expect(global.status).toBe(200);
    expect(global.body.payload).toEqual({
      id: expect.any(Number),
      name: 'Escalate',
      visibility: 'global',
      created_by: expect.objectContaining({ id: s.admin.id, name: expect.any(String), role: 'administrator' }),
      updated_by: expect.objectContaining({ id: s.admin.id }),
      account_id: s.accountId,
      actions: [{ action_name: 'change_priority', action_params: ['high'] }],
    });
    // Asked for global, an agent's macro is personal.
    const mine = await s.agent.api.post(`${s.base}/macros`, {
      macro: { name: 'Mine', visibility: 'global', actions: [{ action_name: 'resolve_conversation' }] },
    });
    expect(mine.status).toBe(200);
    expect(mine.body.payload).toMatchObject({
      visibility: 'personal',
      created_by: { id: s.agent.id },
      actions: [{ action_name: 'resolve_conversation', action_params: [] }],
    });
    const adminsOwn = ok(
      await s.admin.api.post(`${s.base}/macros`, { name: 'Admin only', actions: [{ action_name: 'open_conversation' }] }),
      'personal',
    );
    expect(adminsOwn.payload.visibility).toBe('personal');

    const names = (res: { body: { payload: { name: string }[] } }) => res.body.payload.map((m) => m.name).sort();
    expect(names(await s.agent.api.get(`${s.base}/macros`))).toEqual(['Escalate', 'Mine']);
    expect(names(await s.admin.api.get(`${s.base}/macros`))).toEqual(['Admin only', 'Escalate']);
    expect((await other.admin.api.get(`${other.base}/macros`)).body.payload).toEqual([]);

    expect((await s.agent.api.get(`${s.base}/macros/${global.body.payload.id}`)).body.payload.name).toBe('Escalate');
    expectErrorBody(await s.admin.api.get(`${s.base}/macros/${mine.body.payload.id}`), 404);
    expectErrorBody(await other.admin.api.get(`${other.base}/macros/${global.body.payload.id}`), 404);

    // Agents change only their own; administrators the global ones too.
    expectErrorBody(await s.agent.api.patch(`${s.base}/macros/${global.body.payload.id}`, { name: 'x' }), 403);
    expectErrorBody(await s.agent.api.delete(`${s.base}/macros/${global.body.payload.id}`), 403);
    const renamed = await s.agent.api.put(`${s.base}/macros/${mine.body.payload.id}`, { name: 'Mine v2' });
    expect(renamed.body.payload).toMatchObject({ name: 'Mine v2', visibility: 'personal' });
    const edited = await s.admin.api.patch(`${s.base}/macros/${global.body.payload.id}`, {
      macro: { actions: [{ action_name: 'add_label', action_params: ['billing'] }] },
    });
    expect(edited.body.payload).toMatchObject({
      actions: [{ action_name: 'add_label', action_params: ['billing'] }],
      visibility: 'global',
    });
    const demoted = await s.admin.api.patch(`${s.base}/macros/${global.body.payload.id}`, { visibility: 'personal' });
    expect(demoted.body.payload.visibility).toBe('personal');
    expect(names(await s.agent.api.get(`${s.base}/macros`))).toEqual(['Mine v2']);

    expect((await s.agent.api.delete(`${s.base}/macros/${mine.body.payload.id}`)).status).toBe(200);
    expectErrorBody(await s.agent.api.get(`${s.base}/macros/${mine.body.payload.id}`), 404);
  });

  it('validates actions against the automation catalog (422 naming each path)', async () => {
    const bad = expectErrorBody(
      await s.admin.api.post(`${s.base}/macros`, {
        name: 'Bad',
        actions: [
          { action_name: 'explode' },
          { action_name: 'change_priority', action_params: ['sky-high'] },
          { action_name: 'send_webhook_event', action_params: ['https://example.com'] },
        ],
      }),
      422,
    );
    expect(Object.keys(fieldsOf(bad))).toEqual(
      expect.arrayContaining(['actions[0].action_name', 'actions[1].action_params', 'actions[2].action_name']),
    );
    expect(fieldsOf(expectErrorBody(await s.admin.api.post(`${s.base}/macros`, { name: 'Empty', actions: [] }), 422))).toHaveProperty(
      'actions',
    );
    expect(
      fieldsOf(
        expectErrorBody(
          await s.admin.api.post(`${s.base}/macros`, {
            name: 'Vis',
            visibility: 'team',
            actions: [{ action_name: 'resolve_conversation' }],
          }),
          422,
        ),
      ),
    ).toEqual({
      visibility: 'invalid',
    });
    const bot = await newBot(s);
    expectErrorBody(await bot.api.get(`${s.base}/macros`), 403);
  });

  it('executes every action on every conversation with the agent as actor, by the automation action runner', async () => {
    const macro = ok(
      await s.admin.api.post(`${s.base}/macros`, {
        name: 'Triage',
        visibility: 'global',
        actions: [
          { action_name: 'add_label', action_params: ['billing'] },
          { action_name: 'assign_agent', action_params: [s.agent.id] },
          { action_name: 'change_priority', action_params: ['urgent'] },
          { action_name: 'add_private_note', action_params: ['triaged'] },
          { action_name: 'resolve_conversation' },
        ],
      }),
      'macro',
    ).payload;
    const a = await newConversation(s, { inbox_id: w.inbox.id, contact_id: w.contact.id });
    const b = await newConversation(s, { inbox_id: w.inbox.id, contact_id: w.contact.id });
    const res = await s.agent.api.post(`${s.base}/macros/${macro.id}/execute`, { conversation_ids: [a.id, b.id] });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    for (const c of [a, b]) {
      const shown = ok(await s.agent.api.get(`${s.base}/conversations/${c.id}`), 'show');
      expect(shown).toMatchObject({ status: 'resolved', priority: 'urgent', labels: ['billing'], meta: { assignee: { id: s.agent.id } } });
      const messages = ok(await s.agent.api.get(`${s.base}/conversations/${c.id}/messages`), 'messages').payload as Record<string, any>[];
      const note = messages.find((m) => m.content === 'triaged');
      expect(note).toMatchObject({ private: true, message_type: 1, sender: { id: s.agent.id, type: 'user' } });
    }

    // A conversation the agent cannot see: 404, and nothing ran on the visible one either.
    const hidden = await newInbox(s);
    const secret = await newConversation(s, { inbox_id: hidden.id, contact_id: w.contact.id });
    const c = await newConversation(s, { inbox_id: w.inbox.id, contact_id: w.contact.id });
    expectErrorBody(await s.agent.api.post(`${s.base}/macros/${macro.id}/execute`, { conversation_ids: [c.id, secret.id] }), 404);
    expect(ok(await s.admin.api.get(`${s.base}/conversations/${c.id}`), 'show')).toMatchObject({ status: 'open', labels: [] });
    expect(
      fieldsOf(expectErrorBody(await s.agent.api.post(`${s.base}/macros/${macro.id}/execute`, { conversation_ids: [] }), 422)),
    ).toHaveProperty('conversation_ids');
    expectErrorBody(await s.agent.api.post(`${s.base}/macros/999999999/execute`, { conversation_ids: [c.id] }), 404);
    expectErrorBody(await other.admin.api.post(`${other.base}/macros/${macro.id}/execute`, { conversation_ids: [c.id] }), 404);
  });
});
