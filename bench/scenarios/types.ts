import type { Client } from '../../test/support/runtime.ts';

/** What the bench knows to set up once per route. */
export interface BenchWorld {
  baseUrl: string;
  platform: Client;
  /** An account with an administrator and an agent (tokens and clients). */
  account: {
    id: number;
    base: string;
    admin: { id: number; token: string; api: Client };
    agent: { id: number; token: string; api: Client };
  };
  unique(prefix?: string): string;
  /**
   * The event pipeline, paused while routes are measured (its table traffic would count against them): a setup that
   * needs the pipeline's work (SLA misses) runs it for its own while. Absent where the pipeline always runs.
   */
  pipeline?: { pause(): Promise<void>; resume(): Promise<void> };
}

export interface BenchRequest {
  method: string;
  path: string;
  body?: unknown;
  /** The caller; defaults to the account administrator. */
  client?: Client;
  /** Expected status (200 when absent). */
  status?: number;
  /** Request headers (a provider's webhook: its content type and signature). */
  headers?: Record<string, string>;
}

/**
 * How to call one route: `prepare` runs untimed before every call (e.g. creates the object a DELETE
 * removes), `request` builds the timed call.
 */
export interface Scenario<S = unknown> {
  setup?: (w: BenchWorld) => Promise<S>;
  prepare?: (w: BenchWorld, state: S, i: number) => Promise<unknown>;
  request: (w: BenchWorld, state: S, prepared: unknown, i: number) => BenchRequest;
}

/** Keyed by route key: `${method} ${path}` exactly as in infra/routes.ts. */
export type Scenarios = Record<string, Scenario<any>>;
