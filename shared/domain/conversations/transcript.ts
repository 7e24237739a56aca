import type { Actor } from '#shared/model/actor.ts';
import { requestMail } from '../mail/outbox.ts';
import { takeSlots, throttleEmail, THROTTLES } from '../throttles.ts';
import { visibleConversation } from './access.ts';

/**
 * `POST /conversations/{id}/transcript {email}` (Chatwoot's ConversationsController#transcript): an agent who may
 * see the conversation mails its transcript to any address, through the pipeline's mail path (the same mail as the
 * widget's). The address is the caller's choice, so each mail takes the widget's slots for the conversation (3 an
 * hour) and the recipient (5 an hour), and one of the account's daily transcript allowance (100), first: a
 * refused one is 429 and mails nothing.
 */
export async function mailConversationTranscript(accountId: number, actor: Actor, displayId: number, email: string) {
  const c = await visibleConversation(accountId, actor, displayId);
  await takeSlots(
    [
      [THROTTLES.transcriptConversation, `${accountId}:${c.id}`],
      [THROTTLES.transcriptRecipient, throttleEmail(email)],
      [THROTTLES.transcriptAccount, String(accountId)],
    ],
    'Too many transcript requests. Please try again later.',
  );
  await requestMail({ kind: 'conversation_transcript', account_id: accountId, conversation_id: c.id, to: email });
}
