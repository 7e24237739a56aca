import type { SQSEvent } from 'aws-lambda';
import * as v from 'valibot';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { log } from '#shared/log.ts';
import { getConversation } from '#shared/db/repositories/conversations.ts';
import { getAccount } from '#shared/db/repositories/identity.ts';
import { NewMessageSchema } from '#shared/domain/messages/schemas.ts';
import { addMessage } from '#shared/domain/messages/service.ts';
import { deliverAll } from '#shared/events/deliver.ts';
import type { Delivery } from '#shared/queues/deliveries.ts';
import { encodeQueueBody } from '#shared/codec/queue-text.ts';
import { client, expectErrorBody, runtime, seedAccount, unique, type Client, type SeededAccount } from '../../support/runtime.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';
import {
  anonymous,
  apiInbox,
  contactPath,
  conversationPath,
  inboxPath,
  publicContact,
  publicConversation,
  type ApiInbox,
} from '../public/fixtures.ts';
import { browser, configPath, eventsPath, openWidget, widgetInbox, EVENT_INFO } from '../widget/fixtures.ts';
import { until } from '../../support/until.ts';

// A suspended account (platform PATCH status) is refused on every interface with 403
// `account_suspended`, and the event pipeline sends nothing for it; reactivated, all works again.

const suspended = (res: Awaited<ReturnType<Client['get']>>) => {
  const err = expectErrorBody(res, 403);
  expect(err.errors[0].code).toBe('account_suspended');
};

/** What the service warns about while the test runs (whatever the log level lets through). */
function captureWarnings() {
  const lines: Record<string, unknown>[] = [];
  const spy = vi.spyOn(log, 'warn').mockImplementation((message, fields) => void lines.push({ message, ...fields }));
  return { lines, restore: () => spy.mockRestore() };
}

// How long a wait of this file lasts before it fails.
const WAIT = { timeoutMs: 60_000 };

describe('a suspended account', () => {
  let s: SeededAccount;
  let inbox: ApiInbox;
  let site: Awaited<ReturnType<typeof widgetInbox>>;
  let sourceId: string;
  let convId: number;
  let messageId: number;
  let botToken: string;
  let hook: Receiver;
  let callback: Receiver;
  let botHook: Receiver;
  const setStatus = async (status: string) => {
    const r = await s.platform.patch(`/platform/api/v1/accounts/${s.accountId}`, { status });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe(status);
  };

  beforeAll(async () => {
    await runtime();
    s = await seedAccount();
    [hook, callback, botHook] = await Promise.all([startReceiver(), startReceiver(), startReceiver()]);
    expect(
      (
        await s.admin.api.post(`${s.base}/webhooks`, {
          url: hook.url,
          subscriptions: ['message_created', 'contact_created', 'conversation_created'],
        })
      ).status,
    ).toBe(200);
    inbox = await apiInbox(s, { webhook_url: callback.url });
    const bot = await s.admin.api.post(`${s.base}/agent_bots`, { name: 'Helper', outgoing_url: botHook.url });
    botToken = bot.body.access_token;
    expect((await s.admin.api.post(`${s.base}/inboxes/${inbox.id}/set_agent_bot`, { agent_bot: bot.body.id })).status).toBe(200);
    site = await widgetInbox(s);
    const api = await anonymous();
    const contact = await publicContact(api, inbox);
    sourceId = contact.source_id;
    const conv = await publicConversation(api, inbox, sourceId);
    convId = conv.id;
    const m = await api.post(`${conversationPath(inbox, sourceId, convId)}/messages`, { content: 'hello while active' });
    expect(m.status).toBe(200);
    messageId = m.body.id;
    // Wired: the active account's message reaches the webhook, the inbox callback and the inbox's bot.
    for (const r of [hook, callback, botHook])
      await until(() => r.received.some((x) => x.json?.event === 'message_created' && x.json.id === messageId), WAIT);
  }, 180_000);
  afterEach(async () => {
    await setStatus('active');
  });
  afterAll(async () => {
    await Promise.all([hook?.close(), callback?.close(), botHook?.close()]);
  });

  it('is refused on the account interface, for users and agent bots', async () => {
    await setStatus('suspended');
    suspended(await s.admin.api.get(`${s.base}/conversations`));
    suspended(await s.agent.api.post(`${s.base}/conversations/${convId}/messages`, { content: 'x' }));
    suspended(await client((await runtime()).baseUrl, botToken).post(`${s.base}/conversations/${convId}/messages`, { content: 'x' }));
  });

  it('is refused on every public route, before any other check, and nothing is written', async () => {
    await setStatus('suspended');
    const api = await anonymous();
    const conv = conversationPath(inbox, sourceId, convId);
    suspended(await api.get(inboxPath(inbox)));
    suspended(await api.post(`${inboxPath(inbox)}/contacts`, { name: 'New' }));
    suspended(await api.get(contactPath(inbox, sourceId)));
    suspended(await api.patch(contactPath(inbox, sourceId), { name: 'Renamed' }));
    suspended(await api.get(`${contactPath(inbox, sourceId)}/conversations`));
    suspended(await api.post(`${contactPath(inbox, sourceId)}/conversations`, {}));
    suspended(await api.get(conv));
    suspended(await api.post(`${conv}/toggle_status`));
    suspended(await api.post(`${conv}/toggle_typing`, { typing_status: 'on' }));
    suspended(await api.post(`${conv}/update_last_seen`));
    suspended(await api.get(`${conv}/messages`));
    suspended(await api.post(`${conv}/messages`, { content: 'while suspended' }));
    suspended(await api.patch(`${conv}/messages/${messageId}`, { submitted_values: [] }));
    // A contact or conversation that does not exist: still the suspension, it is known first.
    suspended(await api.get(contactPath(inbox, 'no-such-contact')));
    suspended(await api.get(conversationPath(inbox, sourceId, 999999)));
    // An unknown inbox stays unknown.
    expect(expectErrorBody(await api.get(inboxPath('no-such-inbox')), 404).errors[0].code).toBe('not_found');

    await setStatus('active');
    const after = await api.get(`${conv}/messages`);
    expect(after.status).toBe(200);
    expect(after.body.map((m: { content: string }) => m.content)).not.toContain('while suspended');
    expect((await api.get(contactPath(inbox, sourceId))).body.name).not.toBe('Renamed');
  });

  it('is refused on the widget routes', async () => {
    const b = await browser();
    const session = await openWidget(b, site);
    await setStatus('suspended');
    suspended(await b.post(configPath(site.website_token)));
    suspended(await b.post(configPath(site.website_token), undefined, { 'X-Auth-Token': session.auth_token }));
    suspended(
      await b.post(
        eventsPath(site.website_token),
        { name: 'webwidget.triggered', event_info: EVENT_INFO },
        { 'X-Auth-Token': session.auth_token },
      ),
    );
    await setStatus('active');
    expect((await b.post(configPath(site.website_token), undefined, { 'X-Auth-Token': session.auth_token })).status).toBe(200);
  });

  it('gets no webhook, inbox callback or bot call for a change made while it is suspended', async () => {
    const warnings = captureWarnings();
    try {
      await setStatus('suspended');
      // A write that lands while the account is suspended (as one in flight at the moment of suspension).
      const account = (await getAccount(s.accountId))!;
      const conversation = (await getConversation(s.accountId, convId, true))!;
      const marker = unique('while-suspended-');
      const { message } = await addMessage(
        account,
        { type: 'contact', contactId: conversation.contact_id },
        conversation,
        v.parse(NewMessageSchema, { content: marker }),
      );
      // The dispatcher has taken it and sent nothing: no receiver ever sees it.
      await until(
        () =>
          warnings.lines.some(
            (l) => l.message === 'event not dispatched: account suspended' && l.accountId === s.accountId && l.event === 'message_created',
          ),
        WAIT,
      );
      for (const r of [hook, callback, botHook]) expect(r.received.filter((x) => x.body.includes(marker))).toEqual([]);

      // Reactivated, the next message is delivered everywhere, and the suspended one still never is.
      await setStatus('active');
      const next = await (await anonymous()).post(`${conversationPath(inbox, sourceId, convId)}/messages`, {
        content: 'after reactivation',
      });
      for (const r of [hook, callback, botHook])
        await until(() => r.received.some((x) => x.json?.event === 'message_created' && x.json.id === next.body.id), WAIT);
      for (const r of [hook, callback, botHook])
        expect(r.received.filter((x) => x.json?.event === 'message_created' && x.json.id === message.id)).toEqual([]);
    } finally {
      warnings.restore();
    }
  }, 120_000);

  it('has deliveries queued before the suspension dropped, not sent', async () => {
    const delivery = (id: string): Delivery => ({
      id,
      event: 'message_created',
      event_id: id,
      url: hook.url,
      secret: null,
      body: JSON.stringify({ event: 'message_created', marker: id }),
      target: { kind: 'webhook', id: 1 },
      account_id: s.accountId,
      scope: 'test',
      created_at: Date.now(),
    });
    const batch = (d: Delivery): SQSEvent => ({
      Records: [
        {
          messageId: d.id,
          receiptHandle: 'unused',
          body: encodeQueueBody(d),
          attributes: { ApproximateReceiveCount: '1', MessageGroupId: 'g', MessageDeduplicationId: d.id } as never,
          messageAttributes: {},
          md5OfBody: '',
          eventSource: 'aws:sqs',
          eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:deliveries.fifo',
          awsRegion: 'us-east-1',
        },
      ],
    });
    await setStatus('suspended');
    const dropped = unique('dropped-');
    expect(await deliverAll(batch(delivery(dropped)))).toEqual({ batchItemFailures: [] });
    expect(hook.received.filter((x) => x.body.includes(dropped))).toEqual([]);
    // The same delivery for the active account is sent (the call returns once the receiver answered).
    await setStatus('active');
    const sent = unique('sent-');
    expect(await deliverAll(batch(delivery(sent)))).toEqual({ batchItemFailures: [] });
    expect(hook.received.filter((x) => x.body.includes(sent))).toHaveLength(1);
  });
});
