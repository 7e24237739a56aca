import { beforeAll, describe, expect, it } from 'vitest';
import * as keys from '#shared/db/keys.ts';
import { expectErrorBody, type Client } from '../../support/runtime.ts';
import { streamChanges } from '../../support/stream.ts';
import {
  anonymous,
  apiInbox,
  contactPath,
  conversationPath,
  expectPublicConversation,
  expectPublicMessage,
  inboxPath,
  ok,
  publicContact,
  publicConversation,
  publicMessage,
  seedAccount,
  unique,
  type ApiInbox,
  type SeededAccount,
} from './fixtures.ts';

// docs/chatwoot.md#public-api and contract endpoints 13-14 (docs/contract.md#endpoints): an end client that knows
// only an inbox identifier creates a contact, opens a conversation, sends messages, reads the conversation and marks
// it seen; agents see it all on the account interface, and every change is on the table's stream.

describe('public interface: the end client journey', () => {
  let s: SeededAccount;
  let inbox: ApiInbox;
  let api: Client;

  beforeAll(async () => {
    s = await seedAccount();
    inbox = await apiInbox(s);
    api = await anonymous();
  });

  it('shows the inbox: identifier, identity validation, hours', async () => {
    const info = ok(await api.get(inboxPath(inbox)), 'inbox');
    expect(info).toMatchObject({
      identifier: inbox.inbox_identifier,
      identity_validation_enabled: false,
      name: expect.any(String),
      timezone: expect.any(String),
      working_hours: expect.any(Array),
      working_hours_enabled: false,
      csat_survey_enabled: false,
      greeting_enabled: false,
    });
    expect(JSON.stringify(info)).not.toContain(inbox.hmac_token);
  });

  it('walks the whole journey: contact, conversation, messages, contract endpoint 13, contract endpoint 14', async () => {
    const email = `${unique('c')}@example.com`;
    const contact = ok(
      await api.post(`${inboxPath(inbox)}/contacts`, { name: 'Ada Client', email, custom_attributes: { plan: 'free' } }),
      'contact',
    );
    expect(contact).toEqual({
      source_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      pubsub_token: expect.any(String),
      id: expect.any(Number),
      name: 'Ada Client',
      email,
      phone_number: null,
    });
    expect(ok(await api.get(contactPath(inbox, contact.source_id)), 'show contact')).toEqual(contact);

    const conv = ok(
      await api.post(`${contactPath(inbox, contact.source_id)}/conversations`, { custom_attributes: { order: 'A-1' } }),
      'conversation',
    );
    expectPublicConversation(conv);
    expect(conv).toMatchObject({
      inbox_id: String(inbox.id),
      status: 'open',
      messages: [],
      contact_last_seen_at: 0,
      contact: { id: contact.id, email },
    });

    const first = ok(
      await api.post(`${conversationPath(inbox, contact.source_id, conv.id)}/messages`, { content: 'Hello there', echo_id: 'e1' }),
      'message',
    );
    expectPublicMessage(first);
    expect(first).toMatchObject({
      content: 'Hello there',
      message_type: 0,
      status: 'sent',
      content_type: 'text',
      sender_type: 'contact',
      sender_id: contact.id,
      private: false,
      conversation_id: conv.id,
      inbox_id: inbox.id,
      account_id: s.accountId,
      echo_id: 'e1',
      sender: { id: contact.id, type: 'contact', name: 'Ada Client' },
      conversation: { id: conv.id, status: 'open' },
    });

    // An agent answers on the account interface and leaves a private note the contact must not see.
    const reply = ok(await s.admin.api.post(`${s.base}/conversations/${conv.id}/messages`, { content: 'Hi Ada' }), 'reply');
    ok(await s.admin.api.post(`${s.base}/conversations/${conv.id}/messages`, { content: 'internal', private: true }), 'note');

    // Contract endpoint 13 (docs/contract.md#endpoints).
    const shown = ok(await api.get(conversationPath(inbox, contact.source_id, conv.id)), 'show');
    expectPublicConversation(shown);
    expect(shown.id).toBe(conv.id);
    expect(shown.messages.map((m: any) => m.content)).toEqual(['Hello there', 'Hi Ada']);
    expect(shown.messages[1]).toMatchObject({
      id: reply.id,
      message_type: 1,
      sender_type: 'user',
      sender_id: s.admin.id,
      sender: { id: s.admin.id, type: 'user' },
    });
    expect(shown.messages[0]).not.toHaveProperty('echo_id');
    expect(shown.contact).toMatchObject({
      id: contact.id,
      email,
      account_id: s.accountId,
      custom_attributes: { plan: 'free' },
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      contact_type: 'lead',
      blocked: false,
    });

    // Contract endpoint 14 (docs/contract.md#endpoints).
    const before = Math.floor(Date.now() / 1000);
    const seen = await api.post(`${conversationPath(inbox, contact.source_id, conv.id)}/update_last_seen`);
    expect(seen.status).toBe(200);
    expect(seen.text === '' || seen.text === '{}').toBe(true);
    const after = ok(await api.get(conversationPath(inbox, contact.source_id, conv.id)), 'show again');
    expect(after.contact_last_seen_at).toBeGreaterThanOrEqual(before);
    expect(after.contact_last_seen_at).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    const agentSide = ok(await s.admin.api.get(`${s.base}/conversations/${conv.id}`), 'account show');
    expect(agentSide.contact_last_seen_at).toBe(after.contact_last_seen_at);

    // The agents see the contact's messages as incoming, from the contact.
    const listed = ok(await s.admin.api.get(`${s.base}/conversations/${conv.id}/messages`), 'account messages').payload;
    expect(listed.find((m: any) => m.id === first.id)).toMatchObject({
      message_type: 0,
      sender_type: 'Contact',
      sender: { id: contact.id, type: 'contact' },
    });
    expect(agentSide).toMatchObject({ custom_attributes: { order: 'A-1' }, unread_count: 1, meta: { sender: { id: contact.id } } });

    // Every change is an item change on the stream, made by the contact.
    const changes = await streamChanges((ch) => ch.pk === keys.conversation(s.accountId, conv.id).pk);
    expect(changes.find((ch) => ch.type === 'conversation' && ch.action === 'INSERT')?.newImage).toMatchObject({
      id: conv.id,
      updated_by: { type: 'contact', id: contact.id },
    });
    expect(changes.find((ch) => ch.type === 'message' && ch.newImage?.id === first.id)?.newImage).toMatchObject({
      message_type: 0,
      sender_type: 'Contact',
      sender_id: contact.id,
      performed_by: { type: 'contact', id: contact.id },
    });
    const seenChange = changes.filter((ch) => ch.type === 'conversation' && ch.action === 'MODIFY').at(-1);
    expect(seenChange?.oldImage?.contact_last_seen_at).toBeNull();
    expect(seenChange?.newImage?.contact_last_seen_at).toBe(after.contact_last_seen_at);
    const contactChanges = await streamChanges((ch) => ch.pk === keys.contact(s.accountId, contact.id).pk && ch.type === 'contact');
    expect(contactChanges[0]).toMatchObject({ action: 'INSERT', newImage: { email, name: 'Ada Client' } });
    // The incoming message made the contact active (Chatwoot announces contact_updated for it).
    expect(contactChanges.some((ch) => ch.action === 'MODIFY' && ch.newImage?.last_activity_at === first.created_at)).toBe(true);
  });

  describe('contacts', () => {
    it('returns the contact of a known source_id, ignoring the other fields', async () => {
      const sourceId = unique('src-');
      const made = await publicContact(api, inbox, { source_id: sourceId, name: 'First' });
      expect(made.source_id).toBe(sourceId);
      const again = ok(
        await api.post(`${inboxPath(inbox)}/contacts`, { source_id: sourceId, name: 'Second', email: `${unique('x')}@example.com` }),
        'again',
      );
      expect(again).toEqual(made);
    });

    it('identifies existing contacts by identifier, then email, then phone; names nameless ones', async () => {
      const identifier = unique('user-');
      const email = `${unique('e')}@example.com`;
      const phone = `+1555${String(Date.now()).slice(-7)}`;
      const byIdentifier = await publicContact(api, inbox, { identifier, email, phone_number: phone });
      const second = await publicContact(api, inbox, { identifier, email: `${unique('other')}@example.com` });
      expect(second.id).toBe(byIdentifier.id);
      expect(second.source_id).not.toBe(byIdentifier.source_id);
      expect((await publicContact(api, inbox, { email: email.toUpperCase() })).id).toBe(byIdentifier.id);
      expect((await publicContact(api, inbox, { phone_number: phone })).id).toBe(byIdentifier.id);
      const other = await publicContact(api, inbox, { email: `${unique('new')}@example.com` });
      expect(other.id).not.toBe(byIdentifier.id);

      const nameless = ok(await api.post(`${inboxPath(inbox)}/contacts`, {}), 'nameless');
      expect(nameless.name).toMatch(/^[a-z]+-[a-z]+-\d{4}$/);
      // An account-side contact found by email gets a contact inbox here too.
      const agentMade = ok(
        await s.admin.api.post(`${s.base}/contacts`, { name: 'Known', email: `${unique('k')}@example.com` }),
        'account contact',
      ).payload.contact;
      expect((await publicContact(api, inbox, { email: agentMade.email })).id).toBe(agentMade.id);
    });

    it('refuses invalid fields with 422 naming them, form-encoded bodies work', async () => {
      const bad = expectErrorBody(await api.post(`${inboxPath(inbox)}/contacts`, { email: 'not-an-email', phone_number: '12' }), 422);
      expect(bad.errors.map((e) => e.field).sort()).toEqual(['email', 'phone_number']);
      const long = expectErrorBody(await api.post(`${inboxPath(inbox)}/contacts`, { name: 'x'.repeat(300) }), 422);
      expect(long.errors[0]).toMatchObject({ field: 'name', code: 'too_long' });
      const form = await api.post(`${inboxPath(inbox)}/contacts`, 'contact[name]=Formed&contact[custom_attributes][a]=1', {
        'content-type': 'application/x-www-form-urlencoded',
      });
      expect(ok(form, 'form').name).toBe('Formed');
    });

    it('updates: blanks change nothing, custom attributes merge deeply, the raw contact row comes back', async () => {
      const c = await publicContact(api, inbox, {
        name: 'Old Name',
        email: `${unique('u')}@example.com`,
        custom_attributes: { prefs: { a: 1, b: 2 }, tier: 'x' },
      });
      const res = await api.patch(contactPath(inbox, c.source_id), {
        name: 'New Name',
        email: '',
        phone_number: '+14155550123',
        identifier: 'ignored-identifier',
        custom_attributes: { prefs: { b: 3 } },
      });
      const row = ok(res, 'update');
      expect(row).toMatchObject({
        id: c.id,
        name: 'New Name',
        email: c.email,
        phone_number: '+14155550123',
        identifier: null,
        account_id: s.accountId,
        custom_attributes: { prefs: { a: 1, b: 3 }, tier: 'x' },
        additional_attributes: {},
        contact_type: 'lead',
        blocked: false,
        middle_name: '',
        last_name: '',
        company_id: null,
        created_at: expect.stringMatching(/Z$/),
        updated_at: expect.stringMatching(/Z$/),
      });
      expect(row).not.toHaveProperty('source_id');
      expect(row).not.toHaveProperty('pubsub_token');
      expect(ok(await api.put(contactPath(inbox, c.source_id), { name: 'Put Name' }), 'put').name).toBe('Put Name');
      // An email another contact holds folds this contact into that one (ContactIdentifyAction; see
      // test/e2e/contacts/merge.test.ts for the whole merge).
      const holder = await publicContact(api, inbox, { email: `${unique('h')}@example.com` });
      const merged = ok(await api.patch(contactPath(inbox, c.source_id), { email: holder.email }), 'merge');
      expect(merged).toMatchObject({ id: holder.id, email: holder.email, phone_number: '+14155550123', name: holder.name });
      expect(ok(await api.get(contactPath(inbox, c.source_id)), 'show').id).toBe(holder.id);
      const changes = await streamChanges(
        (ch) => ch.pk === keys.contact(s.accountId, c.id).pk && ch.type === 'contact' && ch.action === 'MODIFY',
      );
      expect(changes.some((ch) => ch.newImage?.name === 'New Name' && ch.oldImage?.name === 'Old Name')).toBe(true);
    });
  });

  describe('conversations', () => {
    it('lists the contact inbox conversations with their chat messages, oldest first', async () => {
      const c = await publicContact(api, inbox);
      const one = await publicConversation(api, inbox, c.source_id);
      const two = await publicConversation(api, inbox, c.source_id);
      await publicMessage(api, inbox, c.source_id, two.id, 'in two');
      const list = ok(await api.get(`${contactPath(inbox, c.source_id)}/conversations`), 'list');
      expect(list.map((x: any) => x.id)).toEqual([one.id, two.id]);
      list.forEach(expectPublicConversation);
      expect(list[1].messages.map((m: any) => m.content)).toEqual(['in two']);
      const fresh = await publicContact(api, inbox);
      expect(ok(await api.get(`${contactPath(inbox, fresh.source_id)}/conversations`), 'empty')).toEqual([]);
    });

    it('returns the last conversation on a single-conversation inbox', async () => {
      const locked = await apiInbox(s);
      ok(await s.admin.api.patch(`${s.base}/inboxes/${locked.id}`, { lock_to_single_conversation: true }), 'lock');
      const c = await publicContact(api, locked);
      const first = await publicConversation(api, locked, c.source_id);
      const second = await publicConversation(api, locked, c.source_id);
      expect(second.id).toBe(first.id);
    });

    it('starts pending in an inbox with an agent bot; refuses array custom attributes', async () => {
      const botInbox = await apiInbox(s);
      const bot = ok(await s.platform.post('/platform/api/v1/agent_bots', { name: unique('bot-'), account_id: s.accountId }), 'bot');
      ok(await s.admin.api.post(`${s.base}/inboxes/${botInbox.id}/set_agent_bot`, { agent_bot: bot.id }), 'set bot');
      const c = await publicContact(api, botInbox);
      expect((await publicConversation(api, botInbox, c.source_id)).status).toBe('pending');
      const own = await publicContact(api, inbox);
      const refused = expectErrorBody(
        await api.post(`${contactPath(inbox, own.source_id)}/conversations`, { custom_attributes: [1] }),
        422,
      );
      expect(refused.errors[0].field).toBe('custom_attributes');
    });

    it('toggle_status resolves once, with an activity message the contact does not see; a new message reopens', async () => {
      const c = await publicContact(api, inbox, { name: 'resolver' });
      const conv = await publicConversation(api, inbox, c.source_id);
      const path = `${conversationPath(inbox, c.source_id, conv.id)}/toggle_status`;
      const resolved = ok(await api.post(path), 'resolve');
      expectPublicConversation(resolved);
      expect(resolved.status).toBe('resolved');
      expect(ok(await api.post(path), 'resolve again').status).toBe('resolved');
      const activity = ok(await s.admin.api.get(`${s.base}/conversations/${conv.id}/messages`), 'messages').payload.filter(
        (m: any) => m.message_type === 2,
      );
      expect(activity.map((m: any) => m.content)).toEqual(['Conversation was resolved by Resolver']);
      expect(ok(await api.get(conversationPath(inbox, c.source_id, conv.id)), 'show').messages).toEqual([]);
      const statusChanges = (
        await streamChanges((ch) => ch.pk === keys.conversation(s.accountId, conv.id).pk && ch.type === 'conversation')
      ).filter((ch) => ch.oldImage?.status !== ch.newImage?.status && ch.action === 'MODIFY');
      expect(statusChanges).toHaveLength(1);
      expect(statusChanges[0].newImage).toMatchObject({ status: 'resolved', updated_by: { type: 'contact', id: c.id } });
      await publicMessage(api, inbox, c.source_id, conv.id, 'one more thing');
      expect(ok(await api.get(conversationPath(inbox, c.source_id, conv.id)), 'reopened').status).toBe('open');
    });

    it('toggle_typing raises typing signals for on/off and ignores other values', async () => {
      const c = await publicContact(api, inbox);
      const conv = await publicConversation(api, inbox, c.source_id);
      const path = `${conversationPath(inbox, c.source_id, conv.id)}/toggle_typing`;
      for (const typing_status of ['on', 'off', 'sideways']) {
        const res = await api.post(path, { typing_status });
        expect(res.status).toBe(200);
        expect(res.text).toBe('');
      }
      const signals = await streamChanges((ch) => ch.pk === keys.conversation(s.accountId, conv.id).pk && ch.type === 'event_signal');
      expect(signals.map((ch) => ch.newImage?.name)).toEqual(['conversation_typing_on', 'conversation_typing_off']);
      expect(signals[0].newImage).toMatchObject({
        account_id: s.accountId,
        conversation_id: conv.id,
        contact_id: c.id,
        performed_by: { type: 'contact', id: c.id },
      });
    });
  });

  describe('messages', () => {
    it('lists the latest 20 chat messages, oldest first, paging back with before', async () => {
      const c = await publicContact(api, inbox);
      const conv = await publicConversation(api, inbox, c.source_id);
      const ids: number[] = [];
      for (let i = 0; i < 23; i++) {
        ids.push((await publicMessage(api, inbox, c.source_id, conv.id, `m${i}`)).id);
        if (i === 10) ok(await s.admin.api.post(`${s.base}/conversations/${conv.id}/messages`, { content: 'note', private: true }), 'note');
      }
      const path = `${conversationPath(inbox, c.source_id, conv.id)}/messages`;
      const latest = ok(await api.get(path), 'latest');
      expect(latest.map((m: any) => m.id)).toEqual(ids.slice(3));
      latest.forEach(expectPublicMessage);
      const older = ok(await api.get(`${path}?before=${ids[3]}`), 'older');
      expect(older.map((m: any) => m.id)).toEqual(ids.slice(0, 3));
      expect(expectErrorBody(await api.get(`${path}?before=abc`), 422).errors[0].field).toBe('before');
    });

    it('creates messages with attachments (multipart) and refuses empty or oversize content', async () => {
      const c = await publicContact(api, inbox);
      const conv = await publicConversation(api, inbox, c.source_id);
      const path = `${conversationPath(inbox, c.source_id, conv.id)}/messages`;
      const form = new FormData();
      form.append('content', 'see attached');
      form.append('attachments[]', new Blob([Buffer.from('89504e470d0a1a0a', 'hex')], { type: 'image/png' }), 'shot.png');
      const m = ok(await api.post(path, form), 'upload');
      expectPublicMessage(m);
      expect(m.attachment).toMatchObject({ file_type: 'image', extension: 'png', data_url: expect.any(String) });
      expect(m.attachments).toHaveLength(1);
      expect(expectErrorBody(await api.post(path, { content: '' }), 422).errors[0].field).toBe('content');
      expect(expectErrorBody(await api.post(path, { content: 'x'.repeat(150_001) }), 422).errors[0]).toMatchObject({
        field: 'content',
        code: 'too_long',
      });
      // The contact cannot choose the type: it is always incoming.
      expect(ok(await api.post(path, { content: 'sneaky', message_type: 'outgoing', private: true }), 'typed')).toMatchObject({
        message_type: 0,
        private: false,
      });
    });

    it('takes submitted_values for interactive messages only, and fires a message change', async () => {
      const c = await publicContact(api, inbox);
      const conv = await publicConversation(api, inbox, c.source_id);
      const select = ok(
        await s.admin.api.post(`${s.base}/conversations/${conv.id}/messages`, {
          content: 'Pick one',
          content_type: 'input_select',
          content_attributes: {
            items: [
              { title: 'Yes', value: 'yes' },
              { title: 'No', value: 'no' },
            ],
          },
        }),
        'select',
      );
      const path = `${conversationPath(inbox, c.source_id, conv.id)}/messages/${select.id}`;
      const answered = ok(await api.patch(path, { message: { submitted_values: [{ title: 'Yes', value: 'yes' }] } }), 'submit');
      expectPublicMessage(answered);
      expect(answered.content_attributes).toEqual({
        items: [
          { title: 'Yes', value: 'yes' },
          { title: 'No', value: 'no' },
        ],
        submitted_values: [{ title: 'Yes', value: 'yes' }],
      });
      const shown = ok(await s.admin.api.get(`${s.base}/conversations/${conv.id}/messages`), 'account').payload.find(
        (m: any) => m.id === select.id,
      );
      expect(shown.content_attributes.submitted_values).toEqual([{ title: 'Yes', value: 'yes' }]);
      const changes = await streamChanges((ch) => ch.type === 'message' && ch.action === 'MODIFY' && ch.newImage?.id === select.id);
      expect(changes.at(-1)?.newImage).toMatchObject({ performed_by: { type: 'contact', id: c.id } });

      const csat = ok(
        await s.admin.api.post(`${s.base}/conversations/${conv.id}/messages`, { content: 'Rate us', content_type: 'input_csat' }),
        'csat',
      );
      const rated = ok(
        await api.put(`${conversationPath(inbox, c.source_id, conv.id)}/messages/${csat.id}`, {
          submitted_values: { csat_survey_response: { rating: 5, feedback_message: 'great' } },
        }),
        'rate',
      );
      expect(rated.content_attributes.submitted_values).toEqual({ csat_survey_response: { rating: 5, feedback_message: 'great' } });
      const badRating = expectErrorBody(
        await api.put(`${conversationPath(inbox, c.source_id, conv.id)}/messages/${csat.id}`, {
          submitted_values: { csat_survey_response: { rating: 9 } },
        }),
        422,
      );
      expect(badRating.errors[0].field).toMatch(/^submitted_values/);

      const text = await publicMessage(api, inbox, c.source_id, conv.id, 'plain');
      const refused = expectErrorBody(
        await api.patch(`${conversationPath(inbox, c.source_id, conv.id)}/messages/${text.id}`, { submitted_values: [] }),
        422,
      );
      expect(refused.errors[0].field).toBe('submitted_values');
      const note = ok(
        await s.admin.api.post(`${s.base}/conversations/${conv.id}/messages`, {
          content: 'n',
          private: true,
          content_type: 'input_select',
          content_attributes: { items: [{ title: 'a', value: 'a' }] },
        }),
        'note',
      );
      expectErrorBody(
        await api.patch(`${conversationPath(inbox, c.source_id, conv.id)}/messages/${note.id}`, { submitted_values: [] }),
        404,
      );
      expectErrorBody(
        await api.patch(`${conversationPath(inbox, c.source_id, conv.id)}/messages/999999999`, { submitted_values: [] }),
        404,
      );
      expect(expectErrorBody(await api.patch(path, {}), 422).errors[0]).toMatchObject({ field: 'submitted_values', code: 'required' });
    });
  });
});
