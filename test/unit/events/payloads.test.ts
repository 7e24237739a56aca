import { describe, expect, it } from 'vitest';
import {
  contactWebhookPayload,
  conversationPushData,
  conversationWebhookPayload,
  inboxPayload,
  messageWebhookData,
  messageWebhookPayload,
  typingWebhookPayload,
  webwidgetWebhookPayload,
} from '#shared/domain/events/payloads.ts';
import type { ChangedAttributes } from '#shared/domain/events/domain-events.ts';
import { cableEventsOf } from '#shared/realtime/cable-events.ts';
import { account, contact, context, conversation, domainEvent, inbox, message, refs, signal, T0, user } from '../support/records.ts';

// Webhook payloads from records (shared/domain/events/payloads.ts), as Chatwoot's receivers read them:
// field names and types, message_type as a name in webhooks (a number in push data), ISO times where
// Chatwoot sends them, and private notes kept out of what a contact could see.

const iso = (t: number) => new Date(t * 1000).toISOString();
const note = message({
  id: 950,
  message_type: 1,
  private: true,
  content: 'Internal: refund approved',
  processed_message_content: 'Internal: refund approved',
  sender_type: 'User',
  sender_id: 5,
});

describe('conversation push data', () => {
  it('Chatwoot’s fields and types, from the conversation, its contact inbox and the records it refers to', () => {
    const c = conversation({
      assignee_id: 5,
      team_id: 4,
      priority: 'high',
      labels: ['vip'],
      unread_count: 14,
      snoozed_until: T0 + 3600,
      first_reply_created_at: T0 + 120,
      agent_last_seen_at: T0 + 130,
      contact_last_seen_at: null,
      waiting_since: null,
      custom_attributes: { order: 'A-1' },
      hmac_verified: true,
    });
    const data = conversationPushData(context({ conversation: c }));
    expect(data).toEqual({
      additional_attributes: c.additional_attributes,
      can_reply: true,
      channel: 'Channel::WebWidget',
      contact_inbox: {
        id: 77,
        contact_id: 40,
        inbox_id: 2,
        source_id: 'src-40',
        created_at: iso(T0 + 5),
        updated_at: iso(T0 + 5),
        hmac_verified: false,
        pubsub_token: 'pubsub-ana',
      },
      id: 3,
      inbox_id: 2,
      messages: [],
      labels: ['vip'],
      meta: {
        sender: {
          additional_attributes: contact().additional_attributes,
          custom_attributes: { plan: 'gold' },
          email: 'ana@example.com',
          id: 40,
          identifier: 'ana-1',
          name: 'Ana Lima',
          phone_number: '+5511987654321',
          thumbnail: '',
          blocked: false,
          type: 'contact',
        },
        assignee: {
          id: 5,
          name: 'Bruno Costa',
          available_name: 'Bruno',
          avatar_url: '',
          type: 'user',
          availability_status: 'online',
          thumbnail: '',
        },
        assignee_type: 'User',
        team: { id: 4, name: 'sales' },
        hmac_verified: true,
      },
      status: 'open',
      custom_attributes: { order: 'A-1' },
      snoozed_until: iso(T0 + 3600),
      unread_count: 10,
      first_reply_created_at: iso(T0 + 120),
      priority: 'high',
      waiting_since: 0,
      agent_last_seen_at: T0 + 130,
      contact_last_seen_at: 0,
      last_activity_at: T0 + 60,
      timestamp: T0 + 60,
      created_at: T0 + 10,
      updated_at: T0 + 60.25,
      applied_sla: null,
      sla_events: [],
      sla_policy_id: null,
    });
  });

  it('carries the applied SLA (Chatwoot’s enterprise push data) from the conversation’s copy, with its policy’s fields', () => {
    const policy = {
      id: 6,
      account_id: 7,
      name: 'Gold',
      description: 'One hour',
      first_response_time_threshold: 3600,
      next_response_time_threshold: null,
      resolution_time_threshold: 86400,
      only_during_business_hours: false,
      created_at: T0,
      updated_at: T0,
      version: 1,
    };
    const c = conversation({
      sla_policy_id: 6,
      applied_sla: {
        id: 31,
        sla_policy_id: 6,
        sla_status: 'active_with_misses',
        created_at: T0 + 10,
        updated_at: T0 + 3610,
        sla_events: [{ id: 44, event_type: 'frt', meta: {}, created_at: T0 + 3610 }],
      },
    });
    const data = conversationPushData(context({ conversation: c, refs: refs({ slaPolicies: new Map([[6, policy]]) }) }));
    expect(data.sla_policy_id).toBe(6);
    expect(data.applied_sla).toEqual({
      id: 31,
      sla_id: 6,
      sla_status: 'active_with_misses',
      created_at: T0 + 10,
      updated_at: T0 + 3610,
      sla_description: 'One hour',
      sla_name: 'Gold',
      sla_first_response_time_threshold: 3600,
      sla_next_response_time_threshold: null,
      sla_only_during_business_hours: false,
      sla_resolution_time_threshold: 86400,
    });
    expect(data.sla_events).toEqual([{ id: 44, event_type: 'frt', meta: {}, created_at: T0 + 3610, updated_at: T0 + 3610 }]);
  });

  it('a bot assignee is an AgentBot; nobody assigned is null; unknown references are null', () => {
    expect(conversationPushData(context({ conversation: conversation({ assignee_agent_bot_id: 9 }) })).meta).toMatchObject({
      assignee: { id: 9, name: 'Helper', avatar_url: '', type: 'agent_bot' },
      assignee_type: 'AgentBot',
    });
    const bare = conversationPushData(
      context({
        refs: refs({ contacts: new Map(), inboxes: new Map(), users: new Map() }),
        contactInbox: undefined,
        conversation: conversation({ assignee_id: 5, team_id: 99 }),
      }),
    );
    expect(bare.meta).toEqual({ sender: null, assignee: null, assignee_type: null, team: null, hmac_verified: false });
    expect(bare.channel).toBeNull();
    expect(bare.contact_inbox).toBeNull();
  });

  it('carries the last chat message in push form (numeric message_type), but never a private note', () => {
    const last = message({ id: 940, message_type: 1, sender_type: 'User', sender_id: 5, content: 'On its way' });
    const shown = conversationPushData(context({ conversation: conversation({ last_non_activity_message: last, last_message: last }) }));
    expect(shown.messages).toHaveLength(1);
    expect(shown.messages[0]).toMatchObject({
      id: 940,
      message_type: 1,
      content: 'On its way',
      sender: { id: 5, type: 'user' },
      updated_at: iso(T0 + 60),
    });
    const hidden = conversationPushData(context({ conversation: conversation({ last_non_activity_message: note, last_message: note }) }));
    expect(hidden.messages).toEqual([]);
  });

  it('a contact hearing the conversation after a private note learns nothing of it', () => {
    const ctx = context({ conversation: conversation({ last_non_activity_message: note, last_message: note }) });
    const events = cableEventsOf(
      domainEvent('conversation_updated', { conversation: ctx.conversation, changes: { labels: [[], ['refund']] } }),
      ctx,
    );
    const toContact = events.filter((e) => e.audience.contactTokens?.includes('pubsub-ana'));
    expect(toContact.map((e) => e.name)).toEqual(['conversation.updated']);
    expect(JSON.stringify(toContact[0].data)).not.toContain('refund approved');
  });
});

describe('message webhooks', () => {
  it('message_created: Chatwoot’s webhook_data with message_type as a name, created_at in ISO, inbox and account refs, delivery status', () => {
    const m = message();
    const payload = messageWebhookPayload(domainEvent('message_created', { message: m }), m, context());
    expect(payload).toEqual({
      event: 'message_created',
      id: 900,
      content: 'Where is my order?',
      content_type: 'text',
      content_attributes: {},
      additional_attributes: {},
      message_type: 'incoming',
      private: false,
      source_id: null,
      created_at: iso(T0 + 60),
      sender: {
        account: { id: 7, name: 'Acme' },
        avatar: '',
        additional_attributes: contact().additional_attributes,
        custom_attributes: { plan: 'gold' },
        email: 'ana@example.com',
        id: 40,
        identifier: 'ana-1',
        name: 'Ana Lima',
        phone_number: '+5511987654321',
        thumbnail: '',
        blocked: false,
      },
      inbox: { id: 2, name: 'Website' },
      account: { id: 7, name: 'Acme' },
      conversation: conversationPushData(context()),
      status: 'sent',
    });
    expect(payload.sender).not.toHaveProperty('type');
  });

  it('names every message type and each kind of sender', () => {
    const names = [0, 1, 2, 3].map((t) => messageWebhookData(message({ message_type: t as 0 }), context()).message_type);
    expect(names).toEqual(['incoming', 'outgoing', 'activity', 'template']);
    expect(messageWebhookData(message({ sender_type: 'User', sender_id: 5 }), context()).sender).toEqual({
      id: 5,
      name: 'Bruno Costa',
      email: 'bruno@acme.test',
      type: 'user',
    });
    expect(messageWebhookData(message({ sender_type: 'AgentBot', sender_id: 9 }), context()).sender).toEqual({
      id: 9,
      name: 'Helper',
      type: 'agent_bot',
    });
    expect(messageWebhookData(message({ sender_type: null, sender_id: null }), context()).sender).toBeNull();
    expect(messageWebhookData(message({ sender_type: 'User', sender_id: 404 }), context()).sender).toBeNull();
  });

  it('a private note is marked private (webhooks are the account’s own systems)', () => {
    const payload = messageWebhookPayload(domainEvent('message_created', { message: note }), note, context());
    expect(payload).toMatchObject({
      event: 'message_created',
      id: 950,
      private: true,
      message_type: 'outgoing',
      sender: { id: 5, type: 'user' },
    });
  });

  it('attachments only when there are, their stored references never shown as they are', () => {
    expect(messageWebhookData(message(), context())).not.toHaveProperty('attachments');
    const attachment = {
      id: 31,
      message_id: 900,
      account_id: 7,
      file_type: 'image' as const,
      extension: 'png',
      data_url: 'stored:attachments/8/secret.png',
      thumb_url: 'stored:attachments/8/secret-thumb.png',
      file_size: 2048,
      width: 10,
      height: 20,
      filename: 'photo.png',
      content_type: 'image/png',
    };
    const data = messageWebhookData(message({ attachments: [attachment] }), context());
    expect(data.attachments).toEqual([
      {
        id: 31,
        message_id: 900,
        file_type: 'image',
        account_id: 7,
        extension: 'png',
        data_url: '',
        thumb_url: '',
        file_size: 2048,
        width: 10,
        height: 20,
      },
    ]);
  });
});

describe('conversation webhooks', () => {
  it('the event name, the push data, and changed_attributes when the change has them', () => {
    const changed = [{ status: { previous_value: 'open', current_value: 'resolved' } }];
    const ctx = context({ conversation: conversation({ status: 'resolved' }) });
    const payload = conversationWebhookPayload(
      domainEvent('conversation_status_changed', { conversation: ctx.conversation, changedAttributes: changed }),
      ctx,
    );
    expect(payload).toEqual({ event: 'conversation_status_changed', ...conversationPushData(ctx), changed_attributes: changed });
    expect(payload.status).toBe('resolved');
    expect(conversationWebhookPayload(domainEvent('conversation_created', { conversation: ctx.conversation }), ctx)).not.toHaveProperty(
      'changed_attributes',
    );
  });
});

describe('contact webhooks', () => {
  it('the contact’s webhook data (no type, with its account and avatar) and its changes', () => {
    const changed: ChangedAttributes = [
      { name: { previous_value: 'Ana', current_value: 'Ana Lima' } },
      { updated_at: { previous_value: iso(T0), current_value: iso(T0 + 50) } },
    ];
    const payload = contactWebhookPayload(
      domainEvent('contact_updated', { contact: contact(), changedAttributes: changed }),
      contact(),
      account(),
    );
    expect(payload).toEqual({
      event: 'contact_updated',
      account: { id: 7, name: 'Acme' },
      avatar: '',
      additional_attributes: contact().additional_attributes,
      custom_attributes: { plan: 'gold' },
      email: 'ana@example.com',
      id: 40,
      identifier: 'ana-1',
      name: 'Ana Lima',
      phone_number: '+5511987654321',
      thumbnail: '',
      blocked: false,
      changed_attributes: changed,
    });
    expect(contactWebhookPayload(domainEvent('contact_created', { contact: contact() }), contact(), account())).not.toHaveProperty(
      'changed_attributes',
    );
  });

  it('an avatar move never shows a stored reference, nor another account’s file', () => {
    const changed = [{ thumbnail: { previous_value: 'stored:avatars/contacts/8/old.png', current_value: null } }];
    const payload = contactWebhookPayload(domainEvent('contact_updated', { changedAttributes: changed }), contact(), account());
    expect(payload.changed_attributes).toEqual([{ thumbnail: { previous_value: '', current_value: null } }]);
  });
});

describe('typing and widget webhooks', () => {
  it('typing: the typist as a user or as the contact’s webhook data, the conversation, is_private', () => {
    const ctx = context();
    const byAgent = typingWebhookPayload(domainEvent('conversation_typing_on', { signal: signal({ is_private: true }) }), ctx, {
      user: user(),
    });
    expect(byAgent).toEqual({
      event: 'conversation_typing_on',
      user: { id: 5, name: 'Bruno Costa', email: 'bruno@acme.test', type: 'user' },
      conversation: conversationPushData(ctx),
      is_private: true,
    });
    const byContact = typingWebhookPayload(
      domainEvent('conversation_typing_off', { signal: signal({ name: 'conversation_typing_off' }) }),
      ctx,
      { contact: contact() },
    );
    expect(byContact.user).toMatchObject({ id: 40, account: { id: 7, name: 'Acme' }, email: 'ana@example.com' });
    expect(byContact.is_private).toBe(false);
    expect(typingWebhookPayload(domainEvent('conversation_typing_on', { signal: signal() }), ctx, {}).user).toBeNull();
  });

  it('webwidget_triggered: the contact inbox id, contact, inbox and account refs, the current conversation, event_info', () => {
    const s = signal({
      name: 'webwidget_triggered',
      contact_id: 40,
      data: { contact_inbox_id: 77, source_id: 'src-40', event_info: { browser_language: 'pt-BR' } },
    });
    const ctx = context();
    const payload = webwidgetWebhookPayload(domainEvent('webwidget_triggered', { signal: s }), account(), contact(), inbox(), ctx);
    expect(payload).toMatchObject({
      event: 'webwidget_triggered',
      id: 77,
      contact: { id: 40, account: { id: 7, name: 'Acme' } },
      inbox: { id: 2, name: 'Website' },
      account: { id: 7, name: 'Acme' },
      source_id: 'src-40',
      event_info: { browser_language: 'pt-BR' },
    });
    expect(payload.current_conversation).toEqual(conversationPushData(ctx));
    const bare = webwidgetWebhookPayload(
      domainEvent('webwidget_triggered', { signal: signal({ name: 'webwidget_triggered', data: {} }) }),
      account(),
      contact(),
      undefined,
      undefined,
    );
    expect(bare).toMatchObject({ id: null, inbox: null, current_conversation: null, source_id: null, event_info: {} });
  });
});

describe('inbox webhooks', () => {
  it('the inbox without its HMAC secret, times in ISO', () => {
    const payload = inboxPayload(domainEvent('inbox_updated'), inbox()) as Record<string, unknown>;
    expect(payload).toMatchObject({
      event: 'inbox_updated',
      id: 2,
      name: 'Website',
      channel_type: 'Channel::WebWidget',
      avatar_url: '',
      created_at: iso(T0),
      updated_at: iso(T0 + 1),
    });
    expect(payload).not.toHaveProperty('hmac_token');
    expect(JSON.stringify(payload)).not.toContain('hmac-secret-of-the-inbox');
  });
});
