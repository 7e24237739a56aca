import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedAccount, type Client, type SeededAccount } from '../../support/runtime.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';
import { browser, EVENT_INFO, ok, openWidget, trigger, widgetInbox, type WidgetInbox } from './fixtures.ts';
import { until } from '../../support/until.ts';

// End to end (docs/chatwoot.md#webhook-payloads `webwidget_triggered`): the widget opens → events route → signal on
// the table's stream → dispatcher → an account webhook subscribed to the event receives Chatwoot's payload.

// How long a wait of this file lasts before it fails.
const WAIT = { timeoutMs: 15_000 };

describe('webwidget_triggered webhook', () => {
  let s: SeededAccount;
  let inbox: WidgetInbox;
  let api: Client;
  let hook: Receiver;

  beforeAll(async () => {
    s = await seedAccount();
    hook = await startReceiver();
    ok(await s.admin.api.post(`${s.base}/webhooks`, { url: hook.url, subscriptions: ['webwidget_triggered'] }), 'webhook');
    inbox = await widgetInbox(s);
    api = await browser();
  });
  afterAll(() => hook.close());

  const received = (contactId: number) =>
    hook.received.filter((r) => r.json?.event === 'webwidget_triggered' && r.json.contact?.id === contactId);

  it('delivers the visitor, inbox, account, source id and event info; then the latest conversation', async () => {
    const v = await openWidget(api, inbox);
    expect((await trigger(api, inbox, v.auth_token)).status).toBe(200);
    const [first] = await until(() => (received(v.contact.id).length ? received(v.contact.id) : undefined), WAIT);
    expect(first.json).toMatchObject({
      event: 'webwidget_triggered',
      id: expect.any(Number),
      contact: {
        id: v.contact.id,
        name: v.contact.name,
        email: null,
        phone_number: null,
        account: { id: s.accountId, name: expect.any(String) },
      },
      inbox: { id: inbox.id, name: inbox.name },
      account: { id: s.accountId, name: expect.any(String) },
      current_conversation: null,
      source_id: v.contact.source_id,
      event_info: EVENT_INFO,
    });

    const conv = ok(
      await s.admin.api.post(`${s.base}/conversations`, { inbox_id: inbox.id, contact_id: v.contact.id, source_id: v.contact.source_id }),
      'conversation',
    );
    expect((await trigger(api, inbox, v.auth_token)).status).toBe(200);
    const second = await until(() => received(v.contact.id)[1], WAIT);
    expect(second.json).toMatchObject({
      event: 'webwidget_triggered',
      id: first.json.id,
      current_conversation: { id: conv.id, inbox_id: inbox.id, status: 'open' },
      source_id: v.contact.source_id,
    });
    // Only the subscribed event: the visitor's contact_created and the conversation_created are not sent here.
    expect(hook.received.every((r) => r.json?.event === 'webwidget_triggered')).toBe(true);
  });
});
