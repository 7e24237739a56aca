import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, seedAccount, unique, type SeededAccount } from '../../support/runtime.ts';
import { streamChanges } from '../../support/stream.ts';
import {
  expectConversationShape,
  expectMessageShape,
  newBot,
  newContact,
  newConversation,
  newInbox,
  newTeam,
  ok,
  world,
  type World,
} from './fixtures.ts';

// Contract endpoint 3 (docs/contract.md#endpoints) and Chatwoot's rules (docs/chatwoot.md#creating-a-conversation,
// docs/chatwoot.md#status-changes, docs/chatwoot.md#assignment, docs/chatwoot.md#labels-priority-custom-attributes-mute,
// docs/chatwoot.md#conversation-json): create, show, status, assignments, labels, priority, custom attributes; who
// may do what.

describe('conversations', () => {
  let w: World;
  let s: SeededAccount;
  let other: SeededAccount;

  beforeAll(async () => {
    w = await world();
    s = w.s;
    other = await seedAccount();
  });

  describe('create (contract endpoint 3)', () => {
    it('creates with inbox_id + contact_id: id, account_id, inbox_id are integers, the full conversation JSON', async () => {
      const res = await s.admin.api.post(`${s.base}/conversations`, {
        inbox_id: w.inbox.id,
        contact_id: w.contact.id,
        additional_attributes: { browser: 'Firefox', referer: 'not a url' },
        custom_attributes: { plan: 'gold' },
      });
      expect(res.status).toBe(200);
      const c = res.body;
      expectConversationShape(c);
      expect(c).toMatchObject({
        account_id: s.accountId,
        inbox_id: w.inbox.id,
        status: 'open',
        labels: [],
        messages: [],
        priority: null,
        snoozed_until: null,
        unread_count: 0,
        custom_attributes: { plan: 'gold' },
        additional_attributes: { browser: 'Firefox' },
        meta: { sender: { id: w.contact.id, name: w.contact.name, email: w.contact.email }, channel: 'Channel::Api', hmac_verified: false },
      });
      expect(typeof c.updated_at).toBe('number');
      expect(c.meta.assignee).toBeUndefined();
      expect(c.meta.team).toBeUndefined();
      expect(c.last_non_activity_message).toBeNull();
      // Shown as created.
      const shown = ok(await s.admin.api.get(`${s.base}/conversations/${c.id}`), 'show');
      expect(shown).toMatchObject({ id: c.id, uuid: c.uuid, inbox_id: w.inbox.id, status: 'open', custom_attributes: { plan: 'gold' } });
    });

    it('numbers conversations per account: 1, 2, 3, … in each account', async () => {
      const fresh = await seedAccount();
      const [inbox, contact] = await Promise.all([newInbox(fresh), newContact(fresh)]);
      const ids: number[] = [];
      for (let i = 0; i < 3; i++) ids.push((await newConversation(fresh, { inbox_id: inbox.id, contact_id: contact.id })).id);
      expect(ids).toEqual([1, 2, 3]);
    });

    it('takes an initial message, sent by the caller in the same transaction', async () => {
      const c = await newConversation(s, { inbox_id: w.inbox.id, contact_id: w.contact.id, message: { content: 'Hello there' } });
      expect(c.messages).toHaveLength(1);
      expect(c.messages[0]).toMatchObject({
        content: 'Hello there',
        message_type: 1,
        conversation_id: c.id,
        sender_type: 'User',
        sender_id: s.admin.id,
        sender: { id: s.admin.id, type: 'user' },
        conversation: { contact_inbox: { source_id: expect.any(String) } },
      });
      expect(typeof c.messages[0].updated_at).toBe('string');
      expect(c.first_reply_created_at).toBeGreaterThan(0);
      const list = ok(await s.admin.api.get(`${s.base}/conversations/${c.id}/messages`), 'messages');
      expect(list.payload.map((m: any) => m.content)).toEqual(['Hello there']);
      expectMessageShape(list.payload[0]);
    });

    it('uses a given source_id, or the source_id of an existing contact inbox of the account alone', async () => {
      const source = unique('src-');
      const first = await newConversation(s, { inbox_id: w.inbox.id, contact_id: w.contact.id, source_id: source });
      expect(first.messages).toEqual([]);
      const second = await newConversation(s, { source_id: source });
      expect(second).toMatchObject({ inbox_id: w.inbox.id, meta: { sender: { id: w.contact.id } } });
      expect(second.id).not.toBe(first.id);
      // Source ids of another account are not found, and the form-encoded body works too.
      const theirs = await newInbox(other);
      const theirContact = await newContact(other);
      const foreign = unique('src-');
      await newConversation(other, { inbox_id: theirs.id, contact_id: theirContact.id, source_id: foreign });
      expectErrorBody(await s.admin.api.post(`${s.base}/conversations`, { source_id: foreign }), 404);
      expectErrorBody(
        await s.admin.api.post(`${s.base}/conversations`, `source_id=${foreign}`, { 'content-type': 'application/x-www-form-urlencoded' }),
        404,
      );
    });

    it('refuses a body without source_id or inbox_id + contact_id (422 naming source_id), and bad fields', async () => {
      const missing = expectErrorBody(await s.admin.api.post(`${s.base}/conversations`, { inbox_id: w.inbox.id }), 422);
      expect(missing.errors[0]).toMatchObject({ field: 'source_id', code: 'required' });
      const bad = expectErrorBody(
        await s.admin.api.post(`${s.base}/conversations`, {
          inbox_id: 'abc',
          contact_id: w.contact.id,
          status: 'closed',
          custom_attributes: { note: 'x'.repeat(1501) },
          snoozed_until: 'tomorrow',
        }),
        422,
      );
      expect(bad.errors.map((e) => e.field).sort()).toEqual(['custom_attributes', 'inbox_id', 'snoozed_until', 'status']);
    });

    it('answers 404 for an inbox or contact of another account, or an inbox the agent is not a member of', async () => {
      const theirs = await newInbox(other);
      const theirContact = await newContact(other);
      expectErrorBody(await s.admin.api.post(`${s.base}/conversations`, { inbox_id: theirs.id, contact_id: w.contact.id }), 404);
      expectErrorBody(await s.admin.api.post(`${s.base}/conversations`, { inbox_id: w.inbox.id, contact_id: theirContact.id }), 404);
      const hidden = await newInbox(s);
      expectErrorBody(await s.agent.api.post(`${s.base}/conversations`, { inbox_id: hidden.id, contact_id: w.contact.id }), 404);
      expectErrorBody(await other.admin.api.post(`${s.base}/conversations`, { inbox_id: w.inbox.id, contact_id: w.contact.id }), 404);
      const mine = await newConversation(s, { inbox_id: w.inbox.id, contact_id: w.contact.id }, s.agent.api);
      expect(mine.inbox_id).toBe(w.inbox.id);
    });

    it('starts with the given status; a blocked contact starts resolved', async () => {
      const pending = await newConversation(s, { inbox_id: w.inbox.id, contact_id: w.contact.id, status: 'pending' });
      expect(pending.status).toBe('pending');
      const blocked = await newContact(s, { blocked: true });
      const c = await newConversation(s, { inbox_id: w.inbox.id, contact_id: blocked.id, status: 'open' });
      expect(c).toMatchObject({ status: 'resolved', muted: true });
    });

    it('returns the last conversation of the contact inbox when the inbox is locked to one, appending the message', async () => {
      const locked = await newInbox(s, { type: 'api' }, { lock_to_single_conversation: true });
      const contact = await newContact(s);
      const first = await newConversation(s, { inbox_id: locked.id, contact_id: contact.id });
      // The lock is per contact inbox: the same source id again (as Chatwoot's `contact_inbox.conversations.last`).
      const source_id = (await s.admin.api.get(`${s.base}/contacts/${contact.id}`)).body.payload.contact_inboxes[0].source_id;
      const again = await newConversation(s, { inbox_id: locked.id, contact_id: contact.id, source_id, message: { content: 'follow-up' } });
      expect(again.id).toBe(first.id);
      expect(again.messages[0].content).toBe('follow-up');
      const byAddress = await newConversation(s, { source_id });
      expect(byAddress.id).toBe(first.id);
    });

    it('starts pending in an inbox with an active agent bot', async () => {
      const bot = await newBot(s);
      const inbox = await newInbox(s);
      ok(await s.admin.api.post(`${s.base}/inboxes/${inbox.id}/set_agent_bot`, { agent_bot: bot.id }), 'set bot');
      const c = await newConversation(s, { inbox_id: inbox.id, contact_id: w.contact.id, status: 'open' });
      expect(c.status).toBe('pending');
    });

    it('sets assignee and team on create; unknown ones are 422', async () => {
      const team = await newTeam(s);
      const c = await newConversation(s, { inbox_id: w.inbox.id, contact_id: w.contact.id, assignee_id: s.agent.id, team_id: team.id });
      expect(c.meta.assignee).toMatchObject({ id: s.agent.id, role: 'agent', account_id: s.accountId });
      expect(c.meta.assignee_type).toBe('User');
      expect(c.meta.team).toMatchObject({ id: team.id, name: team.name, is_member: false });
      const bad = expectErrorBody(
        await s.admin.api.post(`${s.base}/conversations`, { inbox_id: w.inbox.id, contact_id: w.contact.id, assignee_id: other.admin.id }),
        422,
      );
      expect(bad.errors[0].field).toBe('assignee_id');
    });

    it('puts the conversation and its first message on the stream, with who did it', async () => {
      const c = await newConversation(s, { inbox_id: w.inbox.id, contact_id: w.contact.id, message: { content: 'streamed' } });
      const changes = await streamChanges((ch) => ch.pk === `CONV#${s.accountId}#${c.id}`);
      const conv = changes.find((ch) => ch.type === 'conversation' && ch.action === 'INSERT');
      const msg = changes.find((ch) => ch.type === 'message' && ch.action === 'INSERT');
      expect(conv?.newImage).toMatchObject({
        id: c.id,
        account_id: s.accountId,
        status: 'open',
        updated_by: { type: 'user', id: s.admin.id },
      });
      expect(msg?.newImage).toMatchObject({ content: 'streamed', conversation_id: c.id, performed_by: { type: 'user', id: s.admin.id } });
    });
  });

  describe('show and access', () => {
    it('shows to administrators and member agents; 404 to other accounts and agents outside inbox and team', async () => {
      const hidden = await newInbox(s);
      const c = await newConversation(s, { inbox_id: hidden.id, contact_id: w.contact.id });
      expectConversationShape(ok(await s.admin.api.get(`${s.base}/conversations/${c.id}`), 'show'));
      expectErrorBody(await s.agent.api.get(`${s.base}/conversations/${c.id}`), 404);
      expectErrorBody(await other.admin.api.get(`${s.base}/conversations/${c.id}`), 404);
      expectErrorBody(await s.admin.api.get(`${s.base}/conversations/999999`), 404);
      expectErrorBody(await s.admin.api.get(`${s.base}/conversations/abc`), 404);
      // A team the agent belongs to opens the conversation too.
      const team = await newTeam(s, [s.agent.id]);
      ok(await s.admin.api.post(`${s.base}/conversations/${c.id}/assignments`, { team_id: team.id }), 'assign team');
      const seen = ok(await s.agent.api.get(`${s.base}/conversations/${c.id}`), 'agent show');
      expect(seen.meta.team).toMatchObject({ id: team.id, is_member: true });
    });

    it('refuses every conversation route to a second account and to an agent outside the inbox', async () => {
      const hidden = await newInbox(s);
      const c = await newConversation(s, { inbox_id: hidden.id, contact_id: w.contact.id, message: { content: 'x' } });
      const m = c.messages[0].id;
      const calls: [string, string, unknown?][] = [
        ['GET', `/conversations/${c.id}`],
        ['PATCH', `/conversations/${c.id}`, { priority: 'high' }],
        ['POST', `/conversations/${c.id}/toggle_status`, { status: 'resolved' }],
        ['POST', `/conversations/${c.id}/toggle_priority`, { priority: 'low' }],
        ['POST', `/conversations/${c.id}/custom_attributes`, { custom_attributes: { a: 1 } }],
        ['POST', `/conversations/${c.id}/assignments`, { assignee_id: s.agent.id }],
        ['GET', `/conversations/${c.id}/labels`],
        ['POST', `/conversations/${c.id}/labels`, { labels: ['x'] }],
        ['POST', `/conversations/${c.id}/update_last_seen`],
        ['GET', `/conversations/${c.id}/messages`],
        ['POST', `/conversations/${c.id}/messages`, { content: 'hi' }],
        ['PATCH', `/conversations/${c.id}/messages/${m}`, { status: 'read' }],
        ['DELETE', `/conversations/${c.id}/messages/${m}`],
      ];
      for (const [method, path, body] of calls) {
        expectErrorBody(await other.admin.api.request(method, s.base + path, body), 404);
        expectErrorBody(await s.agent.api.request(method, s.base + path, body), 404);
      }
      // Nothing changed.
      const after = ok(await s.admin.api.get(`${s.base}/conversations/${c.id}`), 'show');
      expect(after).toMatchObject({ status: 'open', priority: null, labels: [], custom_attributes: {} });
      expect(after.meta.assignee).toBeUndefined();
    });
  });

  describe('toggle_status', () => {
    it('toggles open ↔ resolved, sets statuses, snoozes until a time; writes activity messages', async () => {
      const c = await newConversation(s, { inbox_id: w.inbox.id, contact_id: w.contact.id });
      const url = `${s.base}/conversations/${c.id}/toggle_status`;
      const r1 = ok(await s.admin.api.post(url, {}), 'toggle');
      expect(r1).toEqual({ meta: {}, payload: { success: true, conversation_id: c.id, current_status: 'resolved', snoozed_until: null } });
      expect(ok(await s.admin.api.post(url), 'toggle').payload.current_status).toBe('open');
      expect(ok(await s.admin.api.post(url, { status: 'pending' }), 'pending').payload.current_status).toBe('pending');
      const until = Math.floor(Date.now() / 1000) + 3600;
      const snoozed = ok(await s.admin.api.post(url, { status: 'snoozed', snoozed_until: String(until) }), 'snooze');
      expect(snoozed.payload).toMatchObject({ current_status: 'snoozed', snoozed_until: new Date(until * 1000).toISOString() });
      const shown = ok(await s.admin.api.get(`${s.base}/conversations/${c.id}`), 'show');
      expect(shown).toMatchObject({ status: 'snoozed', snoozed_until: new Date(until * 1000).toISOString() });
      // Leaving snoozed clears snoozed_until.
      expect(ok(await s.admin.api.post(url), 'reopen').payload).toMatchObject({ current_status: 'open', snoozed_until: null });
      const messages = ok(await s.admin.api.get(`${s.base}/conversations/${c.id}/messages`), 'messages').payload;
      const activity = messages.filter((m: any) => m.message_type === 2).map((m: any) => m.content);
      expect(activity).toEqual([
        expect.stringMatching(/^Conversation was marked resolved by /),
        expect.stringMatching(/^Conversation was reopened by /),
        expect.stringMatching(/^Conversation was marked as pending by /),
        expect.stringMatching(/^Conversation was snoozed by /),
        expect.stringMatching(/^Conversation was reopened by /),
      ]);
      expect(activity[0]).toContain('administrator');
      const bad = expectErrorBody(await s.admin.api.post(url, { status: 'closed', snoozed_until: 'soon' }), 422);
      expect(bad.errors.map((e) => e.field).sort()).toEqual(['snoozed_until', 'status']);
    });

    it('puts the status change on the stream as one conversation change, with its counters and activity', async () => {
      const c = await newConversation(s, { inbox_id: w.inbox.id, contact_id: w.contact.id });
      ok(await s.admin.api.post(`${s.base}/conversations/${c.id}/toggle_status`, { status: 'resolved' }), 'resolve');
      const changes = await streamChanges((ch) => ch.pk === `CONV#${s.accountId}#${c.id}`);
      const modified = changes.filter((ch) => ch.type === 'conversation' && ch.action === 'MODIFY');
      expect(modified).toHaveLength(1);
      expect(modified[0].oldImage).toMatchObject({ status: 'open', version: 1 });
      expect(modified[0].newImage).toMatchObject({ status: 'resolved', version: 2, updated_by: { type: 'user', id: s.admin.id } });
      expect(changes.filter((ch) => ch.type === 'message').map((ch) => ch.newImage?.message_type)).toEqual([2]);
    });

    it('assigns the conversation to an agent who opens it; administrators do not self-assign', async () => {
      const c = await newConversation(s, { inbox_id: w.inbox.id, contact_id: w.contact.id, status: 'pending' });
      ok(await s.admin.api.post(`${s.base}/conversations/${c.id}/toggle_status`, { status: 'open' }), 'admin open');
      expect(ok(await s.admin.api.get(`${s.base}/conversations/${c.id}`), 'show').meta.assignee).toBeUndefined();
      ok(await s.agent.api.post(`${s.base}/conversations/${c.id}/toggle_status`, { status: 'resolved' }), 'agent resolve');
      ok(await s.agent.api.post(`${s.base}/conversations/${c.id}/toggle_status`, { status: 'open' }), 'agent open');
      const shown = ok(await s.admin.api.get(`${s.base}/conversations/${c.id}`), 'show');
      expect(shown.meta.assignee).toMatchObject({ id: s.agent.id });
      expect(shown.messages[0].content).toMatch(/self-assigned this conversation$/);
    });

    it('lets an agent bot hand a pending conversation off (success null) and refuses bots elsewhere (403)', async () => {
      const bot = await newBot(s);
      const c = await newConversation(s, { inbox_id: w.inbox.id, contact_id: w.contact.id, status: 'pending' });
      const res = ok(await bot.api.post(`${s.base}/conversations/${c.id}/toggle_status`, { status: 'open' }), 'handoff');
      expect(res.payload).toMatchObject({ success: null, current_status: 'open' });
      for (const path of [
        '/conversations',
        `/conversations/${c.id}`,
        `/conversations/${c.id}/labels`,
        `/conversations/${c.id}/messages`,
        '/conversations/meta',
      ]) {
        expectErrorBody(await bot.api.get(s.base + path), 403);
      }
      expectErrorBody(await bot.api.post(`${s.base}/conversations/${c.id}/labels`, { labels: ['a'] }), 403);
    });
  });

  describe('assignments', () => {
    it('assigns an agent (Agent JSON), unassigns with null or an unknown user, assigns a bot (AgentBotSlim)', async () => {
      const c = await newConversation(s, { inbox_id: w.inbox.id, contact_id: w.contact.id });
      const url = `${s.base}/conversations/${c.id}/assignments`;
      const agent = ok(await s.admin.api.post(url, { assignee_id: s.agent.id }), 'assign');
      expect(agent).toMatchObject({
        id: s.agent.id,
        account_id: s.accountId,
        role: 'agent',
        email: expect.any(String),
        name: expect.any(String),
        available_name: expect.any(String),
        availability_status: expect.any(String),
        confirmed: true,
        thumbnail: expect.any(String),
      });
      expect(ok(await s.admin.api.get(`${s.base}/conversations/${c.id}`), 'show').meta).toMatchObject({
        assignee: { id: s.agent.id },
        assignee_type: 'User',
      });
      const none = await s.admin.api.post(url, { assignee_id: null });
      expect(none.status).toBe(200);
      expect(none.body).toBeNull();
      ok(await s.admin.api.post(url, { assignee_id: s.agent.id }), 'assign');
      expect((await s.admin.api.post(url, { assignee_id: other.admin.id })).body).toBeNull();
      expect(ok(await s.admin.api.get(`${s.base}/conversations/${c.id}`), 'show').meta.assignee).toBeUndefined();

      const bot = await newBot(s);
      const slim = ok(await s.admin.api.post(url, { assignee_id: bot.id, assignee_type: 'AgentBot' }), 'assign bot');
      expect(slim).toMatchObject({ id: bot.id, name: bot.name, bot_type: 'webhook' });
      expect(ok(await s.admin.api.get(`${s.base}/conversations/${c.id}`), 'show').meta).toMatchObject({
        assignee: { id: bot.id },
        assignee_type: 'AgentBot',
      });
      const activity = ok(await s.admin.api.get(`${s.base}/conversations/${c.id}/messages`), 'messages')
        .payload.filter((m: any) => m.message_type === 2)
        .map((m: any) => m.content);
      expect(activity[0]).toMatch(/^Assigned to .+ by /);
      expect(activity[1]).toMatch(/^Conversation unassigned by /);
    });

    it('sets a team (raw team row), clears it for an unknown id, and unassigns an assignee outside the team', async () => {
      const c = await newConversation(s, { inbox_id: w.inbox.id, contact_id: w.contact.id, assignee_id: s.admin.id });
      const url = `${s.base}/conversations/${c.id}/assignments`;
      const team = await newTeam(s, [s.agent.id]);
      const row = ok(await s.admin.api.post(url, { team_id: team.id }), 'team');
      expect(row).toMatchObject({ id: team.id, name: team.name, account_id: s.accountId, allow_auto_assign: expect.any(Boolean) });
      const shown = ok(await s.admin.api.get(`${s.base}/conversations/${c.id}`), 'show');
      expect(shown.meta.team).toMatchObject({ id: team.id });
      expect(shown.meta.assignee).toBeUndefined();
      expect((await s.admin.api.post(url, { team_id: 99999999 })).body).toBeNull();
      expect(ok(await s.admin.api.get(`${s.base}/conversations/${c.id}`), 'show').meta.team).toBeUndefined();
      expect(expectErrorBody(await s.admin.api.post(url, { assignee_type: 'Robot', assignee_id: 1 }), 422).errors[0].field).toBe(
        'assignee_type',
      );
    });

    it('lets an agent bot token assign', async () => {
      const bot = await newBot(s);
      const c = await newConversation(s, { inbox_id: w.inbox.id, contact_id: w.contact.id });
      const res = ok(await bot.api.post(`${s.base}/conversations/${c.id}/assignments`, { assignee_id: s.agent.id }), 'bot assigns');
      expect(res.id).toBe(s.agent.id);
    });
  });

  describe('labels, priority, custom attributes', () => {
    it('replaces the label set and lists it', async () => {
      const c = await newConversation(s, { inbox_id: w.inbox.id, contact_id: w.contact.id });
      const url = `${s.base}/conversations/${c.id}/labels`;
      expect(ok(await s.agent.api.post(url, { labels: ['billing', 'vip'] }), 'labels')).toEqual({ payload: ['billing', 'vip'] });
      expect(ok(await s.agent.api.post(url, { labels: ['vip', 'urgent'] }), 'labels')).toEqual({ payload: ['vip', 'urgent'] });
      expect(ok(await s.agent.api.get(url), 'labels')).toEqual({ payload: ['vip', 'urgent'] });
      expect(ok(await s.admin.api.get(`${s.base}/conversations/${c.id}`), 'show').labels).toEqual(['vip', 'urgent']);
      const activity = ok(await s.admin.api.get(`${s.base}/conversations/${c.id}/messages`), 'messages')
        .payload.filter((m: any) => m.message_type === 2)
        .map((m: any) => m.content);
      expect(activity).toEqual([
        expect.stringMatching(/ added billing, vip$/),
        expect.stringMatching(/ added urgent$/),
        expect.stringMatching(/ removed billing$/),
      ]);
      expect(ok(await s.agent.api.post(url, {}), 'clear')).toEqual({ payload: [] });
      // One label is a list of one, as Rails reads `labels=vip`; an object is no list.
      expect(ok(await s.agent.api.post(url, { labels: 'vip' }), 'one label')).toEqual({ payload: ['vip'] });
      expect(expectErrorBody(await s.agent.api.post(url, { labels: { a: 'b' } }), 422).errors[0].field).toBe('labels');
    });

    it('sets priority through toggle_priority and update; invalid values are 422', async () => {
      const c = await newConversation(s, { inbox_id: w.inbox.id, contact_id: w.contact.id });
      const res = await s.admin.api.post(`${s.base}/conversations/${c.id}/toggle_priority`, { priority: 'high' });
      expect(res.status).toBe(200);
      expect(res.text).toBe('');
      expect(ok(await s.admin.api.get(`${s.base}/conversations/${c.id}`), 'show').priority).toBe('high');
      const updated = ok(await s.admin.api.patch(`${s.base}/conversations/${c.id}`, { priority: 'urgent' }), 'update');
      expectConversationShape(updated);
      expect(updated.priority).toBe('urgent');
      expect(
        ok(await s.admin.api.put(`${s.base}/conversations/${c.id}`, { conversation: { priority: null } }), 'update').priority,
      ).toBeNull();
      expect(
        expectErrorBody(await s.admin.api.post(`${s.base}/conversations/${c.id}/toggle_priority`, { priority: 'asap' }), 422).errors[0]
          .field,
      ).toBe('priority');
      const activity = ok(await s.admin.api.get(`${s.base}/conversations/${c.id}/messages`), 'messages')
        .payload.filter((m: any) => m.message_type === 2)
        .map((m: any) => m.content);
      expect(activity).toEqual([
        expect.stringMatching(/ set the priority to high$/),
        expect.stringMatching(/ changed the priority from high to urgent$/),
        expect.stringMatching(/ removed the priority$/),
      ]);
    });

    it('replaces custom attributes', async () => {
      const c = await newConversation(s, { inbox_id: w.inbox.id, contact_id: w.contact.id, custom_attributes: { a: 1, b: 2 } });
      const url = `${s.base}/conversations/${c.id}/custom_attributes`;
      expect(ok(await s.admin.api.post(url, { custom_attributes: { c: 'three' } }), 'attrs')).toEqual({
        custom_attributes: { c: 'three' },
      });
      expect(ok(await s.admin.api.get(`${s.base}/conversations/${c.id}`), 'show').custom_attributes).toEqual({ c: 'three' });
      expect(expectErrorBody(await s.admin.api.post(url, { custom_attributes: [1] }), 422).errors[0].field).toBe('custom_attributes');
    });

    it('update_last_seen sets agent_last_seen_at and clears the unread count', async () => {
      const c = await newConversation(s, { inbox_id: w.inbox.id, contact_id: w.contact.id });
      ok(
        await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'from contact', message_type: 'incoming' }),
        'incoming',
      );
      expect(ok(await s.admin.api.get(`${s.base}/conversations/${c.id}`), 'show').unread_count).toBe(1);
      const seen = ok(await s.admin.api.post(`${s.base}/conversations/${c.id}/update_last_seen`), 'seen');
      expect(seen.unread_count).toBe(0);
      expect(seen.agent_last_seen_at).toBeGreaterThan(0);
    });
  });

  describe('delete', () => {
    it('lets administrators delete a conversation with its messages and its share of the counts', async () => {
      const fresh = await seedAccount();
      const [inbox, contact] = await Promise.all([newInbox(fresh), newContact(fresh)]);
      const keep = await newConversation(fresh, { inbox_id: inbox.id, contact_id: contact.id });
      const c = await newConversation(fresh, { inbox_id: inbox.id, contact_id: contact.id, message: { content: 'bye' } });
      ok(await fresh.admin.api.post(`${fresh.base}/conversations/${c.id}/labels`, { labels: ['gone'] }), 'label');
      expectErrorBody(await fresh.agent.api.delete(`${fresh.base}/conversations/${c.id}`), 403);
      expectErrorBody(await other.admin.api.delete(`${fresh.base}/conversations/${c.id}`), 404);
      const res = await fresh.admin.api.delete(`${fresh.base}/conversations/${c.id}`);
      expect(res.status).toBe(200);
      expect(res.text).toBe('');
      expectErrorBody(await fresh.admin.api.get(`${fresh.base}/conversations/${c.id}`), 404);
      expectErrorBody(await fresh.admin.api.get(`${fresh.base}/conversations/${c.id}/messages`), 404);
      expectErrorBody(await fresh.admin.api.delete(`${fresh.base}/conversations/${c.id}`), 404);
      expect(ok(await fresh.admin.api.get(`${fresh.base}/conversations/meta`), 'meta').meta.all_count).toBe(1);
      expect(ok(await fresh.admin.api.get(`${fresh.base}/conversations/meta?labels[]=gone`), 'meta').meta.all_count).toBe(0);
      const listed = ok(await fresh.admin.api.get(`${fresh.base}/contacts/${contact.id}/conversations`), 'contact');
      expect(listed.payload.map((x: any) => x.id)).toEqual([keep.id]);
    });
  });

  describe('contact conversations', () => {
    it('lists a contact’s conversations the caller may see, newest activity first', async () => {
      const contact = await newContact(s);
      const hidden = await newInbox(s);
      const a = await newConversation(s, { inbox_id: w.inbox.id, contact_id: contact.id });
      const b = await newConversation(s, { inbox_id: hidden.id, contact_id: contact.id });
      // Activity times are whole seconds: let one pass so that the bump orders them.
      await new Promise((r) => setTimeout(r, 1100));
      ok(await s.admin.api.post(`${s.base}/conversations/${a.id}/messages`, { content: 'bump' }), 'bump');
      const admin = ok(await s.admin.api.get(`${s.base}/contacts/${contact.id}/conversations`), 'admin');
      expect(admin.payload.map((c: any) => c.id)).toEqual([a.id, b.id]);
      expectConversationShape(admin.payload[0]);
      const agent = ok(await s.agent.api.get(`${s.base}/contacts/${contact.id}/conversations`), 'agent');
      expect(agent.payload.map((c: any) => c.id)).toEqual([a.id]);
      expectErrorBody(await other.admin.api.get(`${s.base}/contacts/${contact.id}/conversations`), 404);
      expectErrorBody(await s.admin.api.get(`${s.base}/contacts/99999999/conversations`), 404);
    });
  });
});
