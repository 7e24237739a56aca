import * as v from 'valibot';
import type { Actor } from '#shared/model/actor.ts';
import { emitConversationSignal } from '#shared/db/repositories/signals.ts';
import { Bool } from '../schemas.ts';
import type { AccountRecord } from '#shared/model/identity.ts';
import { visibleConversation } from './access.ts';
import { performerOf, type ConversationActor, type ConversationRecord } from '#shared/model/conversations.ts';

export const TypingSchema = v.object({
  typing_status: v.picklist(['on', 'off'], 'must be on or off'),
  is_private: v.optional(Bool, false),
});
export type Typing = v.InferOutput<typeof TypingSchema>;

/**
 * Announces that someone started or stopped typing in a conversation (`conversation_typing_on/off`).
 * Nothing is stored but the short-lived signal, in the conversation's partition so it keeps its place
 * among the conversation's events. The public interface calls this with the contact as actor.
 */
export async function announceTyping(actor: ConversationActor, c: ConversationRecord, input: Typing): Promise<void> {
  await emitConversationSignal({
    name: input.typing_status === 'on' ? 'conversation_typing_on' : 'conversation_typing_off',
    account_id: c.account_id,
    conversation_id: c.id,
    contact_id: c.contact_id,
    inbox_id: c.inbox_id,
    performed_by: performerOf(actor),
    is_private: input.is_private,
    data: {},
  });
}

/** `POST /conversations/{id}/toggle_typing_status`: 200 with an empty body. */
export async function toggleTyping(account: AccountRecord, actor: Actor, displayId: number, input: Typing): Promise<void> {
  await announceTyping(actor, await visibleConversation(account.id, actor, displayId), input);
}
