import * as keys from '../keys.ts';
import { put, type TxItem } from '../transact.ts';
import { INBOX_SUMMARY_FIELDS, inboxSummaryOf, type InboxRecord, type InboxSummary } from '#shared/model/inboxes.ts';

// The items of AP28 (an inbox's summary beside the inbox item) and AP29 (the mark that an account's summaries are
// complete), as the writes of the inbox item (inboxes.ts) and of a new account (identity.ts) put them: kept apart
// from inboxes.ts so that the account's writer does not load the inbox's sealing.

export const summaryItem = (i: InboxSummary) => ({ ...keys.inboxSummary(i.account_id, i.id), type: 'inbox_summary', ...inboxSummaryOf(i) });

/** The summary's put, when a write of the inbox changes a field of it (a new inbox: `before` undefined). */
export const summaryWrites = (after: InboxRecord, before?: InboxRecord): TxItem[] =>
  !before || INBOX_SUMMARY_FIELDS.some((f) => (before[f] ?? null) !== (after[f] ?? null)) ? [{ item: put(summaryItem(after)) }] : [];

/**
 * The summary's fields among `set`, applied to it in the same transaction as the inbox's own update. For an
 * inbox whose summary was never written (an account AP29 has not filled yet) this makes a partial one, which
 * AP28 does not read before AP29 rewrites it whole.
 */
export function summaryUpdate(accountId: number, inboxId: number, set: Record<string, unknown> | undefined): TxItem[] {
  const fields = INBOX_SUMMARY_FIELDS.filter((f) => f !== 'id' && f !== 'account_id' && set?.[f] !== undefined);
  if (!fields.length) return [];
  const names: Record<string, string> = { '#type': 'type' };
  const values: Record<string, unknown> = { ':type': 'inbox_summary' };
  fields.forEach((f, n) => {
    names[`#f${n}`] = f;
    values[`:f${n}`] = set![f];
  });
  return [
    {
      item: {
        Update: {
          TableName: '',
          Key: keys.inboxSummary(accountId, inboxId),
          UpdateExpression: `SET #type = :type, ${fields.map((_, n) => `#f${n} = :f${n}`).join(', ')}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        },
      },
    },
  ];
}

/** The mark that every inbox of a new account has its summary: it has none yet (written with the account). */
export const inboxSummariesStarted = (accountId: number): TxItem => ({
  item: put({ ...keys.inboxSummariesComplete(accountId), type: 'inbox_summaries', account_id: accountId }),
});
