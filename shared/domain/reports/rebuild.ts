import * as keys from '#shared/db/keys.ts';
import type { Key } from '#shared/db/keys.ts';
import {
  AGGREGATE_TYPE,
  aggregateAdds,
  deleteAggregate,
  markReportBlocks,
  putAggregate,
  seriesItemKeys,
  type AggregateKind,
} from '#shared/db/repositories/report-aggregates.ts';
import { forEachReportFact, lastLogSk, setWatermark } from '#shared/db/repositories/report-logs.ts';
import { listInboxSummaries } from '#shared/db/repositories/inboxes.ts';
import { foldAll } from './fold.ts';

// Recomputes an account's report aggregates from its stored facts (every pipeline event's additions):
// sums them in memory, overwrites every aggregate item with its sum and deletes aggregate items no fact
// accounts for, each marked as folded up to the newest pending log, and moves the fold's watermark there:
// the facts of those logs are in the sums, so reads must not add the logs again. Run it while the account
// is quiet (or accept that events landing meanwhile are overwritten; run it again): it is a repair, not part
// of the pipeline.
//
// It writes block items and grouped items (docs/reports.md), whatever the account had: an account of hour items,
// or without grouped items, is moved by its rebuild. They are written first, then the account is marked
// (`report_blocks`, `report_groups`: from then on the folds write them and the reports read them), then the hour
// items go with the other strays; a rebuild that stops half-way leaves the account reading what it read, whole.

export interface RebuildResult {
  facts: number;
  items: number;
  removed: number;
}

export async function rebuildAccountReports(accountId: number): Promise<RebuildResult> {
  const sums = new Map<string, { key: Key; series: string; kind: AggregateKind; values: Map<string, number> }>();
  let facts = 0;
  // Pending logs folded first (their unattended changes are applied; their figures are overwritten below).
  await foldAll(accountId);
  // Read before the facts: every log up to it counts facts the sums below include.
  const folded = await lastLogSk(accountId);
  // A deleted inbox has no series (its purge removed them); its conversations' facts still count elsewhere.
  const inboxSeries = new Set((await listInboxSummaries(accountId)).map((i) => keys.reportSeries.inbox(i.id)));
  const kept = (series: string) => !keys.reportSeries.isInbox(series) || inboxSeries.has(series);
  await forEachReportFact(accountId, (page) => {
    for (const fact of page) {
      facts++;
      for (const [id, add] of aggregateAdds(accountId, fact, { blocks: true, groups: true })) {
        if (!kept(add.series)) continue;
        const into = sums.get(id) ?? { ...add, values: new Map<string, number>() };
        for (const [k, v] of add.values) into.values.set(k, (into.values.get(k) ?? 0) + v);
        sums.set(id, into);
      }
    }
  });
  for (const s of sums.values()) {
    await putAggregate(s.key, {
      type: AGGREGATE_TYPE[s.kind],
      account_id: accountId,
      series: s.series,
      ...(folded ? { fw: folded } : {}),
      ...Object.fromEntries([...s.values].filter(([, v]) => v !== 0)),
    });
  }
  await markReportBlocks(accountId);
  let removed = 0;
  const partitions = new Set([...sums.values()].map((s) => s.key.pk));
  for (const pk of partitions) {
    for (const key of await seriesItemKeys(pk)) {
      if (sums.has(`${key.pk}|${key.sk}`)) continue;
      await deleteAggregate(key);
      removed++;
    }
  }
  if (folded) await setWatermark(accountId, folded);
  return { facts, items: sums.size, removed };
}
