import { describe, expect, it } from 'vitest';
import { isAutoReplyEvent } from '#shared/events/automation.ts';
import type { ConversationRecord } from '#shared/model/conversations.ts';
import type { MessageRecord } from '#shared/model/messages.ts';

const message = (auto: unknown) => ({ content_attributes: { email: { auto_reply: auto } } }) as unknown as MessageRecord;
const conversation = (auto: unknown) => ({ additional_attributes: { auto_reply: auto } }) as unknown as ConversationRecord;

describe('automation skips automatic mail replies (Chatwoot loop protection)', () => {
  it("an auto-reply message's message_created, and its conversation's created and opened events", () => {
    expect(isAutoReplyEvent({ name: 'message_created', message: message(true) })).toBe(true);
    expect(isAutoReplyEvent({ name: 'message_created', message: message(false) })).toBe(false);
    expect(isAutoReplyEvent({ name: 'message_created', message: { content_attributes: {} } as MessageRecord })).toBe(false);
    expect(isAutoReplyEvent({ name: 'conversation_created', conversation: conversation(true) })).toBe(true);
    expect(isAutoReplyEvent({ name: 'conversation_opened', conversation: conversation(true) })).toBe(true);
    expect(isAutoReplyEvent({ name: 'conversation_created', conversation: conversation(false) })).toBe(false);
    // Other events of such a conversation run rules as usual.
    expect(isAutoReplyEvent({ name: 'conversation_updated', conversation: conversation(true) })).toBe(false);
  });
});
