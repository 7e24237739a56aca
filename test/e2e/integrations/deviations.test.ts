import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { untilState as until } from '../../support/until.ts';
import { expectErrorBody, newPlatformApp, seedAccount, unique, type SeededAccount } from '../../support/runtime.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';
import { newContact, newConversation, ok } from '../conversations/fixtures.ts';

// Behaviours that differed from Chatwoot's and that integrations rely on.

describe('Chatwoot behaviours integrations rely on', () => {
  let s: SeededAccount;
  let callback: Receiver;
  let inboxId: number;
  beforeAll(async () => {
    s = await seedAccount();
    callback = await startReceiver();
    inboxId = ok(
      await s.admin.api.post(`${s.base}/inboxes`, { name: 'API', channel: { type: 'api', webhook_url: callback.url } }),
      'inbox',
    ).id;
  });
  afterAll(() => callback?.close());

  it('refuses a platform user without a password (422 on password)', async () => {
    const app = await newPlatformApp();
    const res = expectErrorBody(
      await app.api.post('/platform/api/v1/users', { name: 'No Pass', email: `${unique('np')}@example.com` }),
      422,
    );
    expect(res.errors).toEqual([expect.objectContaining({ field: 'password', code: 'required' })]);
  });

  it('takes a message status update as multipart/form-data', async () => {
    callback.respond(() => ({ status: 200 }));
    const contact = await newContact(s);
    const c = await newConversation(s, { inbox_id: inboxId, contact_id: contact.id });
    const m = ok(await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'hi' }), 'message');
    const form = new FormData();
    form.append('status', 'failed');
    form.append('external_error', 'Number not on WhatsApp');
    const res = await s.admin.api.patch(`${s.base}/conversations/${c.id}/messages/${m.id}`, form);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: m.id, status: 'failed', content_attributes: { external_error: 'Number not on WhatsApp' } });
    const nested = new FormData();
    nested.append('message[status]', 'delivered');
    expect((await s.admin.api.patch(`${s.base}/conversations/${c.id}/messages/${m.id}`, nested)).body).toMatchObject({
      status: 'delivered',
    });
  });

  it('marks a message failed with external_error when the API inbox callback refuses it', async () => {
    // The integration takes the conversation but refuses the message (EvolutionAPI answers an error when
    // WhatsApp refuses a number). Deliveries of one conversation stay in order, so the conversation's own
    // events must get through for the message's turn to come.
    callback.respond((r) => ({ status: r.json?.event === 'message_created' ? 500 : 200 }));
    const contact = await newContact(s);
    const c = await newConversation(s, { inbox_id: inboxId, contact_id: contact.id });
    const m = ok(await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'will not arrive' }), 'message');
    const shown = await until(
      async () =>
        (await s.admin.api.get(`${s.base}/conversations/${c.id}/messages`)).body.payload.find((x: { id: number }) => x.id === m.id),
      (x) => x?.status === 'failed',
    );
    expect(shown.content_attributes).toMatchObject({ external_error: 'HTTP 500' });
    // A receiver that answers again gets the later messages; the failed one keeps its mark.
    callback.respond(() => ({ status: 200 }));
    const next = ok(await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'arrives' }), 'message');
    await until(
      async () => callback.received.filter((r) => r.json?.event === 'message_created' && r.json?.id === next.id),
      (hits) => hits.length > 0,
    );
    const after = (await s.admin.api.get(`${s.base}/conversations/${c.id}/messages`)).body.payload;
    expect(after.find((x: { id: number }) => x.id === next.id).status).toBe('sent');
    expect(after.find((x: { id: number }) => x.id === m.id).status).toBe('failed');
  });
});
