import type { MessageRecord } from '#shared/model/messages.ts';

// Chatwoot's rule of what a channel sends, apart from the sending (./send.ts): the dispatcher decides with it for
// every message event and should not load the message service to do so.

/** Chatwoot's send rule: outgoing or template, not a private note, and no `source_id` yet (the loop guard). */
export const wantsSend = (m: Pick<MessageRecord, 'message_type' | 'private' | 'source_id'>) =>
  (m.message_type === 1 || m.message_type === 3) && !m.private && !m.source_id;

/** Whether a message change is a retry the pipeline must send (status back to `sent` from `failed`). */
export const isRetry = (changes: Record<string, unknown> | undefined, m: MessageRecord) => {
  const status = changes?.status as unknown[] | undefined;
  return !!status && status[0] === 'failed' && status[1] === 'sent' && wantsSend(m);
};
