import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { untilState as until } from '../../support/until.ts';
import { runtime, seedAccount, unique, type SeededAccount } from '../../support/runtime.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';
import { sdk } from './sdk.ts';

// EvolutionAPI's Chatwoot service, step by step with its own calls (@figuro/chatwoot-sdk, its payloads):
// it creates its API inbox pointing at its webhook, a contact per WhatsApp number, a conversation per
// contact, posts the WhatsApp messages, and receives the agents' replies at its webhook. (Its contact
// filter and contact merge are not part of this service yet.)

describe('EvolutionAPI against the service', () => {
  let s: SeededAccount;
  let evolution: Receiver;
  let base: string;
  beforeAll(async () => {
    base = (await runtime()).baseUrl;
    s = await seedAccount();
    evolution = await startReceiver();
  });
  afterAll(() => evolution?.close());

  it('sets up its inbox, contact and conversation, relays messages both ways, and sees refused sends as failed', async () => {
    const client = sdk(base, s.admin.token);
    const accountId = s.accountId;
    const inboxName = unique('WhatsApp ');
    // initInstanceChatwoot: list inboxes, create the API inbox when its name is missing.
    const found: any = await client.inboxes.list({ accountId });
    expect(found.payload.map((i: { name: string }) => i.name)).not.toContain(inboxName);
    const inbox: any = await client.inboxes.create({
      accountId,
      data: { name: inboxName, channel: { type: 'api', webhook_url: evolution.url } as any },
    });
    expect(inbox).toMatchObject({ id: expect.any(Number), name: inboxName, channel_type: 'Channel::Api', webhook_url: evolution.url });

    // createContact: a WhatsApp number with its JID as identifier.
    const phone = `55119${String(Date.now()).slice(-8)}`;
    const contact: any = await client.contacts.create({
      accountId,
      data: { inbox_id: inbox.id, name: 'Maria', identifier: `${phone}@s.whatsapp.net`, phone_number: `+${phone}` } as any,
    });
    const contactId = contact.payload.contact.id;
    expect(contact.payload.contact).toMatchObject({ name: 'Maria', phone_number: `+${phone}`, identifier: `${phone}@s.whatsapp.net` });
    // findContact by search (the filter route is not in this service yet).
    const search: any = await client.contacts.search({ accountId, q: phone });
    expect(search.payload.map((c: { id: number }) => c.id)).toContain(contactId);

    // createConversation: ids as strings, pending when so configured; then the incoming WhatsApp text.
    const conversation: any = await client.conversations.create({
      accountId,
      data: { contact_id: String(contactId), inbox_id: String(inbox.id), status: 'pending' } as any,
    });
    expect(conversation).toMatchObject({ id: expect.any(Number), inbox_id: inbox.id, status: 'pending' });
    const incoming: any = await client.messages.create({
      accountId,
      conversationId: conversation.id,
      data: { content: 'Olá!', message_type: 'incoming' } as any,
    });
    expect(incoming).toMatchObject({ content: 'Olá!', message_type: 0 });
    await client.conversations.toggleStatus({ accountId, conversationId: conversation.id, data: { status: 'open' } as any });

    // An agent replies: Evolution's webhook gets message_created and sends it to WhatsApp.
    evolution.respond(() => ({ status: 200 }));
    const reply = (await s.admin.api.post(`${s.base}/conversations/${conversation.id}/messages`, { content: 'Como posso ajudar?' })).body;
    const hits = await until(
      async () => evolution.received.filter((r) => r.json?.event === 'message_created' && r.json?.id === reply.id),
      (x) => x.length > 0,
    );
    expect(hits[0].json).toMatchObject({
      message_type: 'outgoing',
      content: 'Como posso ajudar?',
      conversation: { id: conversation.id },
      inbox: { id: inbox.id },
    });

    // WhatsApp refuses the next one: Evolution answers an error, and the message shows it.
    evolution.respond((r) => ({ status: r.json?.event === 'message_created' ? 400 : 200 }));
    const refused = (await s.admin.api.post(`${s.base}/conversations/${conversation.id}/messages`, { content: 'Tudo bem?' })).body;
    const failed = await until(
      async () =>
        (await s.admin.api.get(`${s.base}/conversations/${conversation.id}/messages`)).body.payload.find(
          (m: { id: number }) => m.id === refused.id,
        ),
      (m) => m?.status === 'failed',
    );
    expect(failed.content_attributes.external_error).toBe('HTTP 400');
  });
});
