import { recordFact } from '#shared/db/repositories/report-logs.ts';
import { foldAll } from '#shared/domain/reports/fold.ts';
import * as keys from '#shared/db/keys.ts';
import { FIELDS, inboxField, type Figures } from '#shared/model/report-buckets.ts';
import type { Contribution } from '#shared/model/reports.ts';
import type { BenchWorld, Scenarios } from './types.ts';

// Reports: one scenario per route, over a range of BENCH_REPORT_DAYS days (30 unless set, the range the dashboard asks; docs/reports.md#cost
// quotes 30 and 365) in India's offset (+5:30, so every local day cuts two UTC days), on aggregates
// seeded as densely as they can be: every figure in every quarter hour of every day, for the account,
// an inbox and an agent. Reads do not grow with volume, so this is the worst case per range.

const A = '/api/v1/accounts/{account_id}';
const V2 = '/api/v2/accounts/{account_id}';
/** Read when seeding, so a caller (the deploy proof's tour) can ask for a short range. */
const days = () => Number(process.env.BENCH_REPORT_DAYS ?? 30);
const DAY = 86_400;

interface Seeded {
  inboxId: number;
  since: number;
  until: number;
  conversationId: number;
}

let seeded: Promise<Seeded> | undefined;

async function seed(w: BenchWorld): Promise<Seeded> {
  const res = await w.account.admin.api.post(`${w.account.base}/inboxes`, { name: w.unique('reports'), channel: { type: 'api' } });
  if (res.status !== 200) throw new Error(`bench inbox: ${res.status} ${res.text}`);
  const inboxId = res.body.id as number;
  const contact = await w.account.admin.api.post(`${w.account.base}/contacts`, {
    name: 'Report contact',
    email: `${w.unique('r')}@example.com`,
  });
  const conv = await w.account.admin.api.post(`${w.account.base}/conversations`, {
    inbox_id: inboxId,
    contact_id: contact.body.payload.contact.id,
  });
  const DAYS = days();
  const until = Math.floor(Date.now() / 1000 / DAY) * DAY;
  const since = until - DAYS * DAY;
  const label = await w.account.admin.api.post(`${w.account.base}/labels`, { title: w.unique('rl') });
  if (label.status !== 200) throw new Error(`bench label: ${label.status} ${label.text}`);
  const figures: Figures = Object.fromEntries(FIELDS.map((f) => [f, 1]));
  const s = keys.reportSeries;
  const labelSeries = s.label(label.body.title as string);
  // The summary's previous period too: twice the range.
  for (let d = since - DAYS * DAY; d < until; d += DAY) {
    for (const series of [s.account(), s.inbox(inboxId), s.agent(w.account.agent.id), labelSeries]) {
      const contributions: Contribution[] = [];
      // A label series holds its count by inbox as well (the inbox × label matrix).
      const these = series === labelSeries ? { ...figures, [inboxField(inboxId)]: 1 } : figures;
      for (let q = 0; q < 96; q++) contributions.push({ series, at: d + q * 900, figures: these });
      await recordFact({
        fact: { id: `bench:${w.account.id}:${series}:${d}`, account_id: w.account.id, conversation_id: null, contributions, created_at: d },
      });
    }
  }
  // Seeded facts are logged like the pipeline's: folded now, so the reads measured are those of folded aggregates.
  await foldAll(w.account.id);
  return { inboxId, since, until, conversationId: conv.body.id };
}

const once = (w: BenchWorld) => (seeded ??= seed(w));
const range = (r: Seeded) => `since=${r.since}&until=${r.until}&timezone_offset=5.5`;
const get = (path: (w: BenchWorld, r: Seeded) => string) => ({
  setup: once,
  request: (w: BenchWorld, r: Seeded) => ({ method: 'GET', path: path(w, r) }),
});
const v2 = (w: BenchWorld) => `/api/v2/accounts/${w.account.id}`;

export const reports: Scenarios = {
  [`GET ${A}/reporting_events`]: get((w) => `${w.account.base}/reporting_events`),
  [`GET ${A}/conversations/{conversation_id}/reporting_events`]: get(
    (w, r) => `${w.account.base}/conversations/${r.conversationId}/reporting_events`,
  ),
  [`GET ${V2}/reports`]: get((w, r) => `${v2(w)}/reports?metric=avg_first_response_time&type=account&group_by=day&${range(r)}`),
  [`GET ${V2}/reports/summary`]: get((w, r) => `${v2(w)}/reports/summary?type=account&${range(r)}`),
  [`GET ${V2}/reports/bot_summary`]: get((w, r) => `${v2(w)}/reports/bot_summary?type=account&${range(r)}`),
  [`GET ${V2}/reports/conversations`]: get((w) => `${v2(w)}/reports/conversations?type=account`),
  [`GET ${V2}/reports/agents`]: get((w, r) => `${v2(w)}/reports/agents?${range(r)}`),
  [`GET ${V2}/reports/inboxes`]: get((w, r) => `${v2(w)}/reports/inboxes?${range(r)}`),
  [`GET ${V2}/reports/labels`]: get((w, r) => `${v2(w)}/reports/labels?${range(r)}`),
  [`GET ${V2}/reports/teams`]: get((w, r) => `${v2(w)}/reports/teams?${range(r)}`),
  [`GET ${V2}/summary_reports/agent`]: get((w, r) => `${v2(w)}/summary_reports/agent?${range(r)}`),
  [`GET ${V2}/summary_reports/inbox`]: get((w, r) => `${v2(w)}/summary_reports/inbox?${range(r)}`),
  [`GET ${V2}/summary_reports/team`]: get((w, r) => `${v2(w)}/summary_reports/team?${range(r)}`),
  [`GET ${V2}/summary_reports/label`]: get((w, r) => `${v2(w)}/summary_reports/label?${range(r)}`),
  [`GET ${V2}/summary_reports/channel`]: get((w, r) => `${v2(w)}/summary_reports/channel?${range(r)}`),
  [`GET ${V2}/reports/conversations_summary`]: get((w, r) => `${v2(w)}/reports/conversations_summary?${range(r)}`),
  [`GET ${V2}/reports/conversation_traffic`]: get((w) => `${v2(w)}/reports/conversation_traffic?timezone_offset=5.5`),
  [`GET ${V2}/reports/bot_metrics`]: get((w, r) => `${v2(w)}/reports/bot_metrics?${range(r)}`),
  [`GET ${V2}/reports/first_response_time_distribution`]: get((w, r) => `${v2(w)}/reports/first_response_time_distribution?${range(r)}`),
  [`GET ${V2}/reports/inbox_label_matrix`]: get((w, r) => `${v2(w)}/reports/inbox_label_matrix?${range(r)}`),
  [`GET ${V2}/reports/outgoing_messages_count`]: get((w, r) => `${v2(w)}/reports/outgoing_messages_count?group_by=agent&${range(r)}`),
  [`GET ${V2}/year_in_review`]: {
    setup: once,
    request: (w: BenchWorld) => ({ method: 'GET', path: `${v2(w)}/year_in_review`, client: w.account.agent.api }),
  },
  [`GET ${V2}/live_reports/conversation_metrics`]: get((w) => `${v2(w)}/live_reports/conversation_metrics`),
  [`GET ${V2}/live_reports/grouped_conversation_metrics`]: get(
    (w) => `${v2(w)}/live_reports/grouped_conversation_metrics?group_by=assignee_id`,
  ),
};
