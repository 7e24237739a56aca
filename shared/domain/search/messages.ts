import { searchIndex, type Hit } from '#shared/search/index.ts';

// Finding messages by a term: one entry point for every `q` search (conversation lists and counts,
// `conversations/search`, `search/messages`), answered by the `q` index (shared/search).

export type FoundMessage = Hit;

/**
 * Incoming and outgoing messages of these inboxes (or of every inbox: 'all', no inbox list read) whose
 * content contains `term` (case-insensitive).
 */
export const findMessages = (accountId: number, inboxIds: number[] | 'all', term: string): Promise<FoundMessage[]> =>
  searchIndex(accountId, inboxIds, term);
