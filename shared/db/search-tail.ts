import * as keys from './keys.ts';
import type { MessageRecord } from '#shared/model/messages.ts';

// The `q` index's tail item: written with every new incoming or outgoing message (instead of an index
// copy of the whole message), read by searches for what no segment or pack holds yet and by the sealer.
// ~45 bytes plus the content, so reading the tail costs what its text costs. It has no `type`: nothing
// reads one, and the stream forwarder leaves untyped items off the events queue.

/**
 * Incoming and outgoing messages are what `q` searches (docs/chatwoot.md#lists-counts-search-and-filters); private
 * notes are outgoing.
 */
export const searchable = (m: Pick<MessageRecord, 'message_type'>) => m.message_type === 0 || m.message_type === 1;

export function tailItem(m: MessageRecord): Record<string, unknown> | undefined {
  if (!searchable(m)) return undefined;
  return {
    ...keys.searchTail(m.account_id, m.created_at, m.id),
    c: m.conversation_id,
    i: m.inbox_id,
    x: typeof m.content === 'string' ? m.content : '',
  };
}
