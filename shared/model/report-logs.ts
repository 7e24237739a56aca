import { addFigures, floorQuarter, type Field, type Figures } from './report-buckets.ts';
import type { Contribution } from './reports.ts';

// Pending report logs (pure): what a dispatcher batch counted, waiting to be folded into the aggregate items
// (docs/reports.md#how-the-figures-are-kept). A report read adds to each aggregate item the pending figures
// the item lacks: those of logs past the account's watermark and past the item's own fold mark (`fw`, the
// last log of the fold that last wrote it), so an item a fold in progress already wrote is not counted twice.

/** An open conversation's unattended state changing: under whom it waited (null: it did not) and waits now. */
export interface UnattendedChange {
  conversation_id: number;
  /** The assignee it waited under (0: unassigned), or null when it was not waiting. */
  from: number | null;
  from_team: number | null;
  /** The assignee it waits under now (0: unassigned), or null when it does not wait. */
  to: number | null;
  team_id: number | null;
}

export interface ReportLog {
  /** Its sort key: `L#<ms of its put>#<random>` (logs sort by time). */
  sk: string;
  account_id: number;
  /** Facts counted in it. */
  n: number;
  /** The counted facts' contributions, merged per series and quarter hour. */
  contributions: Contribution[];
  /** The batch's unattended changes, in order. */
  unattended: UnattendedChange[];
  /** The counted facts' reporting events, encoded (reporting-event-listing.ts): listed from here until folded. */
  events?: string[];
  /** Reporting events leaving the listing (a deleted conversation's), encoded `id,created`. */
  removed?: string[];
}

/** The account's fold: logs up to `wm` are in the aggregates; `run_end` names a fold in progress (logs up to it). */
export interface FoldState {
  wm: string;
  run_end?: string;
  /** When the fold in progress was claimed (ms): another dispatcher resumes it once it is older than a lease. */
  run_at?: number;
}

/** What reads add: the logs past the watermark, oldest first. */
export interface PendingReports {
  wm: string;
  logs: ReportLog[];
}

export const NO_PENDING: PendingReports = { wm: '', logs: [] };

/** Contributions merged per series and quarter hour (what an aggregate item distinguishes), in a fixed order. */
export function mergeContributions(list: Iterable<Contribution>, sign = 1): Contribution[] {
  const merged = new Map<string, Contribution>();
  for (const x of list) {
    const at = floorQuarter(x.at);
    const id = `${x.series}|${at}`;
    const into = merged.get(id) ?? { series: x.series, at, figures: {} };
    addFigures(into.figures, x.figures, sign);
    merged.set(id, into);
  }
  return [...merged.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, x]) => x);
}

/**
 * The pending contributions of `series` in [from, to) an item folded up to `fw` lacks (fw: its fold mark,
 * undefined for an item no fold wrote).
 */
export function pendingIn(
  p: PendingReports,
  series: string,
  from: number,
  to: number,
  fw: unknown | ((field: string) => unknown),
): Contribution[] {
  const after = (mark: unknown) => (typeof mark === 'string' && mark > p.wm ? mark : p.wm);
  const whole = typeof fw === 'function' ? undefined : after(fw);
  const out: Contribution[] = [];
  for (const log of p.logs) {
    if (whole !== undefined && log.sk <= whole) continue;
    for (const c of log.contributions) {
      if (c.series !== series || c.at < from || c.at >= to) continue;
      if (whole !== undefined) {
        out.push(c);
        continue;
      }
      // Marks per figure (an item a large fold wrote bucket by bucket): the figures this log still adds.
      let figures: Figures | undefined;
      for (const [f, v] of Object.entries(c.figures))
        if (log.sk > after((fw as (field: string) => unknown)(f))) (figures ??= {})[f as Field] = v;
      if (figures) out.push({ ...c, figures });
    }
  }
  return out;
}

/** Pending figures of a series summed over [from, to), for an item folded up to `fw`. */
export const pendingFigures = (p: PendingReports, series: string, from: number, to: number, fw: unknown): Figures =>
  pendingIn(p, series, from, to, fw).reduce((f, c) => addFigures(f, c.figures), {} as Figures);

/** The days (UTC day start) on which a series has pending figures. */
export function pendingDays(p: PendingReports, series: string, day: (t: number) => number): Set<number> {
  const out = new Set<number>();
  for (const log of p.logs) for (const c of log.contributions) if (c.series === series) out.add(day(c.at));
  return out;
}

/** Each conversation's unattended state after a run of changes: the last change of each wins. */
export function lastUnattended(changes: Iterable<UnattendedChange>): Map<number, UnattendedChange> {
  const out = new Map<number, UnattendedChange>();
  for (const c of changes) out.set(c.conversation_id, c);
  return out;
}

/**
 * The unattended conversations now: the stored items (one per waiting conversation) with the pending logs'
 * changes applied in order (states, so applying one a fold already wrote changes nothing).
 */
export function withPendingUnattended<T extends { conversation_id: number; assignee_id: number; team_id: number | null }>(
  items: T[],
  p: PendingReports,
): { conversation_id: number; assignee_id: number; team_id: number | null }[] {
  const byConversation = new Map<number, { conversation_id: number; assignee_id: number; team_id: number | null }>(
    items.map((i) => [i.conversation_id, i]),
  );
  for (const [id, c] of lastUnattended(p.logs.flatMap((l) => l.unattended))) {
    if (c.to === null) byConversation.delete(id);
    else byConversation.set(id, { conversation_id: id, assignee_id: c.to, team_id: c.team_id });
  }
  return [...byConversation.values()];
}
