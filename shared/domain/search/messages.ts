import { searchInboxMessages, type MessageMatch } from '../../db/repositories/messages.ts';

// Finding messages by a term: one entry point for every `q` search (conversation lists and counts,
// `conversations/search`, `search/messages`).

export type FoundMessage = MessageMatch;

/** Incoming and outgoing messages of these inboxes whose content contains `term` (case-insensitive). */
export async function findMessages(accountId: number, inboxIds: number[], term: string): Promise<FoundMessage[]> {
  const found = await Promise.all(inboxIds.map((i) => searchInboxMessages(accountId, i, term)));
  return found.flatMap((m) => [...m.values()].flat());
}
