import * as keys from '#shared/db/keys.ts';
import { getAccountNow } from '#shared/db/repositories/identity.ts';
import { listInboxSummaries } from '#shared/db/repositories/inboxes.ts';
import { aggregateAdds, foldAggregate } from '#shared/db/repositories/report-aggregates.ts';
import {
  applyUnattended,
  claimFold,
  finishFold,
  getFoldState,
  logTime,
  queryLogs,
  type LoggedBatch,
} from '#shared/db/repositories/report-logs.ts';
import { log } from '#shared/log.ts';
import { foldReportingEvents } from './listing.ts';
import type { ReportLog, UnattendedChange } from '#shared/model/report-logs.ts';

// The fold (docs/reports.md#how-the-figures-are-kept): an account's pending report logs added to its aggregate
// items and unattended items, one fold per account at a time. A fold claims the logs up to one (`end`) on the
// account's fold item, adds their merged contributions to each aggregate item with a plain update marked
// `fw = end` on condition that no fold this late wrote it (a fold retried after a crash skips what it wrote),
// applies each conversation's unattended changes as their net state, then moves the watermark to `end`. Reads
// add the logs past the watermark (and past each item's `fw`), so figures are exact before, during and after.

export const FOLD_POLICY = {
  /** Fold once this many facts are pending… */
  facts: 200,
  /** …or the oldest pending log is this old. */
  ageMs: 15 * 60_000,
  /**
   * Only logs older than this: a log's sort key is the time its batch began writing it, and a dispatcher lives
   * at most its timeout (10 s) after, so a log put late never lands behind a fold that passed its time.
   */
  marginMs: 30_000,
  /** A claimed fold not finished after this long is resumed by the next dispatcher (its claimer died). */
  leaseMs: 30_000,
  /** The most logs one fold takes (the rest wait for the next). */
  maxLogs: 500,
  /** A container looks at an account's pending logs after logging this many facts for it, or this long since. */
  checkFacts: 50,
  checkMs: 60_000,
};

export interface FoldResult {
  folded: boolean;
  logs: number;
  facts: number;
  /** Aggregate items written (skipped ones, written by an earlier attempt of the same fold, not counted). */
  items: number;
  unattended: number;
}

const NOTHING: FoldResult = { folded: false, logs: 0, facts: 0, items: 0, unattended: 0 };

/** Runs `fn` over `list` with at most `width` at once. */
async function inParallel<T>(list: T[], width: number, fn: (x: T) => Promise<unknown>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, list.length) }, async () => {
      while (next < list.length) await fn(list[next++]!);
    }),
  );
}

/**
 * Folds the account's pending logs when the policy says so (`force`: whatever is pending past the margin).
 * `marginMs` overrides the policy's margin: only where no dispatcher may still be writing a log (tests, the
 * bench, seeding).
 */
export async function foldAccount(accountId: number, opts: { force?: boolean; marginMs?: number; now?: number } = {}): Promise<FoldResult> {
  const now = opts.now ?? Date.now();
  const state = await getFoldState(accountId);
  let end = state.run_end;
  let logs: ReportLog[] | undefined;
  if (end) {
    // A fold in progress: left alone while its claim is fresh, else resumed with the same logs.
    if ((state.run_at ?? 0) > now - FOLD_POLICY.leaseMs) return NOTHING;
  } else {
    const upto = keys.reportLogSk(now - (opts.marginMs ?? FOLD_POLICY.marginMs), '~');
    logs = await queryLogs(accountId, state.wm, upto, { consistent: true, limit: FOLD_POLICY.maxLogs });
    if (!logs.length) return NOTHING;
    const facts = logs.reduce((n, l) => n + l.n, 0);
    if (!opts.force && facts < FOLD_POLICY.facts && logTime(logs[0]!.sk) > now - FOLD_POLICY.ageMs) return NOTHING;
    end = logs.at(-1)!.sk;
  }
  if (!(await claimFold(accountId, state, end, now))) return NOTHING;
  logs ??= await queryLogs(accountId, state.wm, end, { consistent: true });
  const result = await applyLogs(accountId, logs, end);
  const listed = await foldReportingEvents(accountId, logs, end);
  await finishFold(accountId, end);
  log.info('report logs folded', { accountId, end, listed, ...result });
  return { folded: true, ...result };
}

/** A fold's writes: the logs' merged additions (marked with `end`), then the unattended items' net changes. */
async function applyLogs(accountId: number, logs: ReportLog[], end: string) {
  // A deleted inbox's series went with its purge: a log pending then must not bring its items back. The
  // account's layout (block or hour items, grouped items or not) read as it is now: a fold is rare, and one just
  // after a rebuild moved the account must not write items no read would see, nor leave out ones reads now use.
  const [summaries, account] = await Promise.all([listInboxSummaries(accountId), getAccountNow(accountId)]);
  const inboxes = new Set(summaries.map((i) => keys.reportSeries.inbox(i.id)));
  const contributions = logs.flatMap((l) => l.contributions).filter((c) => !keys.reportSeries.isInbox(c.series) || inboxes.has(c.series));
  const layout = { blocks: !!account?.report_blocks, groups: !!account?.report_groups };
  const adds = [...aggregateAdds(accountId, { contributions }, layout).values()];
  let items = 0;
  await inParallel(adds, 8, async (entry) => {
    if (await foldAggregate(accountId, entry, end)) items++;
  });
  const byConversation = new Map<number, UnattendedChange[]>();
  for (const c of logs.flatMap((l) => l.unattended))
    byConversation.set(c.conversation_id, [...(byConversation.get(c.conversation_id) ?? []), c]);
  let unattended = 0;
  await inParallel([...byConversation.values()], 8, async (changes) => {
    const writes = await applyUnattended(accountId, changes);
    unattended += writes;
  });
  return { logs: logs.length, facts: logs.reduce((n, l) => n + l.n, 0), items, unattended };
}

/** Every pending log folded, batch after batch (seeding and tests: nothing else writes logs meanwhile). */
export async function foldAll(accountId: number): Promise<FoldResult[]> {
  const out: FoldResult[] = [];
  for (;;) {
    const r = await foldAccount(accountId, { force: true, marginMs: 0, now: Date.now() + 1 });
    if (!r.folded) return out;
    out.push(r);
  }
}

/** Facts this container logged per account since it last looked at the account's pending logs. */
const checks = new Map<number, { at: number; facts: number }>();

/**
 * After a batch's logs: looks at the account's pending logs now and then (after `checkFacts` facts logged
 * here, or `checkMs`), and folds when the policy says so. Never throws: the batch's facts are logged, and
 * a fold that failed is resumed by a later one.
 */
export async function foldWhenDue(batches: LoggedBatch[]): Promise<FoldResult[]> {
  const out: FoldResult[] = [];
  for (const b of batches) {
    const facts = b.logs.reduce((n, l) => n + l.n, 0);
    const now = Date.now();
    const seen = checks.get(b.accountId);
    if (seen && seen.facts + facts < FOLD_POLICY.checkFacts && now - seen.at < FOLD_POLICY.checkMs) {
      seen.facts += facts;
      continue;
    }
    if (checks.size >= 10_000) checks.clear();
    checks.set(b.accountId, { at: now, facts: 0 });
    try {
      out.push(await foldAccount(b.accountId, { now }));
    } catch (error) {
      log.error('report fold failed (a later fold resumes it)', { accountId: b.accountId, error });
    }
  }
  return out;
}
