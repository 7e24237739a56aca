import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../support/until.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';
import {
  anonymous,
  apiInbox,
  publicContact,
  publicConversation,
  publicMessage,
  seedAccount,
  type ApiInbox,
  type SeededAccount,
} from './fixtures.ts';
import type { Client } from '../../support/runtime.ts';

// The inbox answers a contact itself (Chatwoot's message templates hook): the greeting to the first message of a
// conversation nobody answered, the out-of-office message outside working hours, once a day. Both are `template`
// messages without a sender, made by the events pipeline after the contact's message.

describe('greeting and out-of-office messages', () => {
  let s: SeededAccount;
  let api: Client;
  let hook: Receiver;

  beforeAll(async () => {
    s = await seedAccount();
    api = await anonymous();
    // The pipeline answers with templates before it queues a message's deliveries: a delivered message was answered.
    hook = await startReceiver();
    expect((await s.admin.api.post(`${s.base}/webhooks`, { url: hook.url, subscriptions: ['message_created'] })).status).toBe(200);
  });
  afterAll(() => hook.close());
  const dispatched = (content: string) =>
    until(() => hook.received.some((r) => r.json?.event === 'message_created' && r.json.content === content), {
      what: `the delivery of "${content}"`,
    });

  const messagesOf = async (conversationId: number) => {
    const res = await s.admin.api.get(`${s.base}/conversations/${conversationId}/messages`);
    expect(res.status).toBe(200);
    return res.body.payload as any[];
  };
  const templates = async (conversationId: number) => (await messagesOf(conversationId)).filter((m) => m.message_type === 3);
  const settle = async (conversationId: number, count: number) =>
    until(async () => ((await templates(conversationId)).length >= count ? templates(conversationId) : undefined), {
      what: `${count} template message(s)`,
    });
  const configure = async (inbox: ApiInbox, body: Record<string, unknown>) =>
    expect((await s.admin.api.patch(`${s.base}/inboxes/${inbox.id}`, body)).status).toBe(200);

  it('greets the first message once, without a sender, and not the next ones', async () => {
    const inbox = await apiInbox(s);
    await configure(inbox, { greeting_enabled: true, greeting_message: 'Hi! We answer within the hour.' });
    const contact = await publicContact(api, inbox);
    const conv = await publicConversation(api, inbox, contact.source_id);
    await publicMessage(api, inbox, contact.source_id, conv.id, 'Hello?');
    const [greeting] = await settle(conv.id, 1);
    expect(greeting).toMatchObject({ content: 'Hi! We answer within the hour.', message_type: 3, private: false });
    expect(greeting.sender).toBeUndefined();
    await publicMessage(api, inbox, contact.source_id, conv.id, 'Anyone there?');
    // The second message dispatched: still one greeting.
    await dispatched('Anyone there?');
    expect(await templates(conv.id)).toHaveLength(1);
  });

  it('answers out of office when the inbox is closed, once a day, and then greets no more', async () => {
    const inbox = await apiInbox(s);
    const closed = [0, 1, 2, 3, 4, 5, 6].map((d) => ({ day_of_week: d, closed_all_day: true }));
    await configure(inbox, {
      greeting_enabled: true,
      greeting_message: 'Hi!',
      working_hours_enabled: true,
      working_hours: closed,
      out_of_office_message: 'We are closed; back tomorrow.',
    });
    const contact = await publicContact(api, inbox);
    const conv = await publicConversation(api, inbox, contact.source_id);
    await publicMessage(api, inbox, contact.source_id, conv.id, 'Open?');
    const [away] = await settle(conv.id, 1);
    expect(away).toMatchObject({ content: 'We are closed; back tomorrow.', message_type: 3 });
    await publicMessage(api, inbox, contact.source_id, conv.id, 'Still closed?');
    await dispatched('Still closed?');
    expect((await templates(conv.id)).map((m) => m.content)).toEqual(['We are closed; back tomorrow.']);
  });
});
