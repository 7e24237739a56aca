import { listImapInboxIds, getInbox } from '#shared/db/repositories/inboxes.ts';
import { getImapState, saveImapProgress, takeImapLease } from '#shared/db/repositories/mail-threads.ts';
import { getAccount } from '#shared/db/repositories/identity.ts';
import { log } from '#shared/log.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import { openImap, type ImapSettings } from '#shared/outbound/mail-servers.ts';

// IMAP polling (Chatwoot's Inboxes::FetchImapEmailsJob, docs/mail.md#imap): each email inbox with `imap_enabled`
// reads its INBOX. Unlike Chatwoot, which searches the last day and skips Message-IDs it has, the poll remembers
// the last UID it imported (within the mailbox's UIDVALIDITY) and fetches only newer ones; a first poll, or a
// mailbox whose UIDVALIDITY changed, starts from the last day's mails, as Chatwoot. Nothing is moved or deleted
// on the server. Each mail goes to the same pipeline as forwarded mail; the Message-ID still dedups.

/** At most this many mails per inbox and poll: a flooded mailbox waits its turn instead of holding the others. */
export const IMAP_BATCH = 50;
/** A poll holds its inbox this long at most (a crashed poll's lease runs out). */
const LEASE_MS = 5 * 60 * 1000;

export type HandOff = (raw: Buffer, inbox: InboxRecord) => Promise<void>;

/** Polls one inbox; the number of mails handed on, or undefined when another poll holds it. */
export async function pollImapInbox(inbox: InboxRecord, handOff: HandOff, now = new Date()): Promise<number | undefined> {
  if (!(await takeImapLease(inbox.account_id, inbox.id, LEASE_MS))) return undefined;
  const state = await getImapState(inbox.account_id, inbox.id);
  let validity = state?.uid_validity ?? '';
  let last = state?.last_uid ?? 0;
  let imported = 0;
  const client = await openImap((inbox.email_settings ?? {}) as ImapSettings).catch(async (err) => {
    await saveImapProgress(inbox.account_id, inbox.id, validity, last);
    throw err;
  });
  try {
    const lock = await client.getMailboxLock('INBOX', { readOnly: true });
    try {
      const mailbox = client.mailbox;
      const current = mailbox ? String(mailbox.uidValidity) : '';
      let uids: number[];
      if (current !== validity) {
        const since = new Date(now.getTime() - 24 * 3600 * 1000);
        uids = ((await client.search({ since }, { uid: true })) || []) as number[];
        validity = current;
        last = 0;
      } else {
        // `n:*` answers the highest message even when it is below n: only newer UIDs are taken.
        uids = (((await client.search({ uid: `${last + 1}:*` }, { uid: true })) || []) as number[]).filter((u) => u > last);
      }
      for (const uid of [...uids].sort((a, b) => a - b).slice(0, IMAP_BATCH)) {
        const msg = await client.fetchOne(String(uid), { source: true }, { uid: true });
        if (msg !== false && msg.source) {
          await handOff(msg.source, inbox);
          imported++;
        }
        last = uid;
      }
    } finally {
      lock.release();
    }
  } finally {
    await client.logout().catch(() => {});
    await saveImapProgress(inbox.account_id, inbox.id, validity, last);
  }
  return imported;
}

/**
 * The scheduled poll: every inbox with IMAP on whose account is active, a few at a time; one inbox's failure
 * (a wrong password, a server down) is logged and leaves the others alone.
 */
export async function pollImapInboxes(handOff: HandOff): Promise<{ polled: number; imported: number; failed: number }> {
  const ids = await listImapInboxIds();
  let [polled, imported, failed] = [0, 0, 0];
  const queue = [...ids];
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const [inbox, account] = await Promise.all([getInbox(next.account_id, next.inbox_id), getAccount(next.account_id)]);
      if (!inbox || !account || account.status === 'suspended' || inbox.email_settings?.imap_enabled !== true) continue;
      try {
        const n = await pollImapInbox(inbox, handOff);
        if (n !== undefined) {
          polled++;
          imported += n;
        }
      } catch (error) {
        failed++;
        log.warn('imap poll failed', { accountId: inbox.account_id, inboxId: inbox.id, error: String(error) });
      }
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  return { polled, imported, failed };
}
