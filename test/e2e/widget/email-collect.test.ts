import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedAccount, unique, type Client, type SeededAccount } from '../../support/runtime.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';
import { until } from '../../support/until.ts';
import { browser, ok, openWidget, widgetApi, type WidgetInbox } from './fixtures.ts';

// Chatwoot's email collect (its message templates hook): in a web widget inbox with `enable_email_collect`, a
// visitor without an email is asked for one after its first message: "Give the team a way to reach you." and the
// "Get notified by email" input_email message, both templates without a sender, once per conversation. The
// visitor's answer through the widget API becomes the contact's email.

describe('widget: the email collect prompt', () => {
  let s: SeededAccount;
  let api: Client;
  let hook: Receiver;

  beforeAll(async () => {
    s = await seedAccount();
    api = await browser();
    // The pipeline runs the templates hook before it queues a message's deliveries: a delivered message was answered.
    hook = await startReceiver();
    expect((await s.admin.api.post(`${s.base}/webhooks`, { url: hook.url, subscriptions: ['message_created'] })).status).toBe(200);
  });
  afterAll(() => hook?.close());

  /** A web widget inbox with Chatwoot's defaults (the shared fixture turns the prompt off), plus `fields`. */
  const widgetInbox = async (fields: Record<string, unknown> = {}): Promise<WidgetInbox & { enable_email_collect: boolean }> =>
    ok(
      await s.admin.api.post(`${s.base}/inboxes`, {
        name: unique('site-'),
        ...fields,
        channel: { type: 'web_widget', website_url: 'https://example.com' },
      }),
      'web widget inbox',
    );
  const answered = (messageId: number) =>
    until(() => hook.received.some((r) => r.json?.event === 'message_created' && r.json.id === messageId), {
      what: `the delivery of message ${messageId}`,
    });
  /** A visitor's first message; its widget calls and the widget's list of messages once the hook has run. */
  const firstMessage = async (inbox: WidgetInbox, email?: string) => {
    const v = await openWidget(api, inbox);
    const w = widgetApi(api, inbox, v.auth_token);
    if (email) ok(await w.patch('/contact', { email }), 'contact email');
    const sent = ok(await w.post('/messages', { message: { content: 'Hello?' } }), 'message');
    await answered(sent.id);
    return { v, w, sent, list: ok(await w.get('/messages'), 'messages') as any[] };
  };

  it('asks a visitor without an email after the greeting, with Chatwoot content; the answer sets the email; once', async () => {
    const inbox = await widgetInbox({ greeting_enabled: true, greeting_message: 'Hi there!' });
    // Chatwoot's default.
    expect(inbox.enable_email_collect).toBe(true);
    const { v, w, sent, list } = await firstMessage(inbox);
    expect(list.map((m) => [m.content, m.message_type, m.content_type])).toEqual([
      ['Hello?', 0, 'text'],
      ['Hi there!', 3, 'text'],
      ['Give the team a way to reach you.', 3, 'text'],
      ['Get notified by email', 3, 'input_email'],
    ]);
    const box = list[3];
    expect(box).toMatchObject({ conversation_id: sent.conversation_id, content_attributes: {} });
    expect(box.sender).toBeUndefined();

    // The agent's view: the same messages, the prompt private to no one.
    const agentView = ok(await s.admin.api.get(`${s.base}/conversations/${sent.conversation_id}/messages`), 'messages').payload as any[];
    expect(agentView.find((m) => m.id === box.id)).toMatchObject({ content_type: 'input_email', message_type: 3, private: false });

    const addr = `${unique('visitor')}@example.com`;
    const submitted = ok(await w.patch(`/messages/${box.id}`, { contact: { email: addr }, message: { submitted_email: addr } }), 'answer');
    expect(submitted.content_attributes).toEqual({ submitted_email: addr });
    expect(ok(await s.admin.api.get(`${s.base}/contacts/${v.contact.id}`), 'contact').payload.email).toBe(addr);

    // The next message is not asked again.
    const next = ok(await w.post('/messages', { message: { content: 'Thanks' } }), 'second');
    await answered(next.id);
    const after = ok(await w.get('/messages'), 'messages') as any[];
    expect(after.filter((m) => m.content_type === 'input_email')).toHaveLength(1);
    expect(after).toHaveLength(5);
  });

  it('a visitor who stays without an email is asked once per conversation only', async () => {
    const inbox = await widgetInbox();
    const { w, list } = await firstMessage(inbox);
    expect(list.filter((m) => m.content_type === 'input_email')).toHaveLength(1);
    const next = ok(await w.post('/messages', { message: { content: 'Still there?' } }), 'second');
    await answered(next.id);
    const after = ok(await w.get('/messages'), 'messages') as any[];
    expect(after.map((m) => m.content)).toEqual(['Hello?', 'Give the team a way to reach you.', 'Get notified by email', 'Still there?']);
  });

  it('not for a visitor with an email, nor with enable_email_collect off', async () => {
    const inbox = await widgetInbox();
    const known = await firstMessage(inbox, `${unique('known')}@example.com`);
    expect(known.list.map((m) => m.content)).toEqual(['Hello?']);

    const off = await widgetInbox();
    expect(ok(await s.admin.api.patch(`${s.base}/inboxes/${off.id}`, { enable_email_collect: false }), 'off').enable_email_collect).toBe(
      false,
    );
    const quiet = await firstMessage(off);
    expect(quiet.list.map((m) => m.content)).toEqual(['Hello?']);
  });
});
