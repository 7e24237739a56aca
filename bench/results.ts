import type { CableResult } from './cable.ts';
import type { CountsResult } from './counts.ts';
import type { ListsResult } from './lists.ts';
import type { ScaleResult } from './scale.ts';
import type { HeatResult } from './heat.ts';
import type { PipelineResult } from './pipeline.ts';
import type { ChannelsResult } from './channels.ts';
import type { ReportWritesResult } from './report-writes.ts';
import type { WidgetWebResult } from './widget-web.ts';

// The shape of bench/results.json, shared by the bench that writes it and the summary that reads two of
// them. Files written by earlier benches lack the newer fields, and a run limited by BENCH_PARTS leaves
// the parts it skipped empty, so every part past the routes is optional here.

export interface RouteResult {
  route: string;
  iterations: number;
  /** p95 since the summary ranks by it; results.json files from earlier runs have p50 and p99 only. */
  endpoint: { p50: number; p95?: number; p99: number };
  dynamo: { p50: number; p99: number; calls: string[] };
  raw: { p50: number; p99: number; replayed: number } | null;
  rcu: number;
  wcu: number;
  error?: string;
}

export interface BundleResult {
  name: string;
  /** What a cold start loads: the entry and the chunks it imports statically. */
  kib: number;
  /** The whole function folder: also the chunks loaded on first use (dynamic imports). Absent in older results. */
  deployedKib?: number;
  coldImportMs: number;
}

export interface BenchResults {
  meta: { date: string; machine: string };
  iterations: number;
  routes: RouteResult[];
  /** Routes without a bench scenario. */
  missing: string[];
  counts?: Partial<CountsResult>;
  lists?: Partial<ListsResult>;
  /** The opt-in scale part (bench/scale.ts): its last run's figures, kept by runs without it. */
  scale?: ScaleResult;
  pipeline?: Partial<PipelineResult>;
  heat?: Partial<HeatResult>;
  reportWrites?: Partial<ReportWritesResult>;
  cable?: Partial<CableResult>;
  bundles?: { functions: BundleResult[]; baseline: BundleResult };
  widget?: Partial<WidgetWebResult>;
  channels?: Partial<ChannelsResult>;
}
