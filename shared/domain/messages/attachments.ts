import { listMessages } from '#shared/db/repositories/messages.ts';
import type { Actor } from '#shared/model/actor.ts';
import { visibleConversation } from '../conversations/access.ts';
import { attachmentJson, loadRefs, senderJson } from '../conversations/view.ts';
import type { AccountRecord } from '#shared/model/identity.ts';
import { pageNumber } from '../paging.ts';

// `GET conversations/{id}/attachments` (the mobile app's media gallery): every attachment of the
// conversation's messages, newest first, 100 a page, each with its message's time and sender.

export const ATTACHMENTS_PER_PAGE = 100;
/** A conversation's messages are read whole (AP71); this bounds one request. */
const MAX_MESSAGES_READ = 10_000;

export async function conversationAttachments(account: AccountRecord, actor: Actor, displayId: number, query: Record<string, string>) {
  const conversation = await visibleConversation(account.id, actor, displayId);
  const page = pageNumber(query.page);
  const messages = (await listMessages(account.id, conversation.id, { limit: MAX_MESSAGES_READ })).filter((m) => m.attachments.length);
  messages.sort((a, b) => b.created_at - a.created_at || b.id - a.id);
  const all = messages.flatMap((m) => [...m.attachments].reverse().map((a) => ({ a, m })));
  const slice = all.slice((page - 1) * ATTACHMENTS_PER_PAGE, page * ATTACHMENTS_PER_PAGE);
  const refs = await loadRefs(
    account.id,
    actor,
    [conversation],
    slice.map(({ m }) => m),
  );
  return {
    meta: { total_count: all.length },
    payload: slice.map(({ a, m }) => {
      const sender = senderJson(m, refs);
      return { ...attachmentJson(a), created_at: m.created_at, ...(sender ? { sender } : {}) };
    }),
  };
}
