import { claimSurvey, saveResponse, setSurveyMessage } from '#shared/db/repositories/csat.ts';
import { recordFact } from '#shared/db/repositories/report-logs.ts';
import { foldAll } from '#shared/domain/reports/fold.ts';
import * as keys from '#shared/db/keys.ts';
import type { CsatSurveyRecord } from '#shared/model/csat.ts';
import { client } from '../../test/support/http.ts';
import type { BenchWorld, Scenarios } from './types.ts';

// CSAT (docs/csat.md): the survey page and its public API on one survey; the responses list, metrics and download
// over BENCH_CSAT_RESPONSES responses (300 unless set) spread over the last 30 days, with their rating figures in
// the aggregates. Reads depend on the responses of the range (list, download) or on the days of the range
// (metrics), never on the account's conversations.

const A = '/api/v1/accounts/{account_id}/csat_survey_responses';
const DAY = 86_400;
const responses = () => Number(process.env.BENCH_CSAT_RESPONSES ?? 300);

interface Seeded {
  uuid: string;
  since: number;
  until: number;
}

let seeded: Promise<Seeded> | undefined;

const ok = <T = any>(res: { status: number; text: string; body: T }, what: string): T => {
  if (res.status !== 200) throw new Error(`bench setup ${what}: ${res.status} ${res.text}`);
  return res.body;
};

async function seed(w: BenchWorld): Promise<Seeded> {
  const api = w.account.admin.api;
  const inbox = ok(await api.post(`${w.account.base}/inboxes`, { name: w.unique('csat'), channel: { type: 'api' } }), 'inbox');
  const contact = ok(
    await api.post(`${w.account.base}/contacts`, { name: 'CSAT contact', email: `${w.unique('s')}@example.com` }),
    'contact',
  );
  const conv = ok(
    await api.post(`${w.account.base}/conversations`, { inbox_id: inbox.id, contact_id: contact.payload.contact.id }),
    'conv',
  );
  const m = ok(
    await api.post(`${w.account.base}/conversations/${conv.id}/messages`, { content: 'Rate us', content_type: 'input_csat' }),
    'csat',
  );
  // The survey the pipeline would have claimed on resolution, naming the message.
  const survey: CsatSurveyRecord = {
    account_id: w.account.id,
    conversation_id: conv.id,
    inbox_id: inbox.id,
    uuid: conv.uuid,
    event_id: 'bench',
    message_id: null,
    sent_at: m.created_at,
  };
  await claimSurvey(survey);
  await setSurveyMessage(w.account.id, conv.id, m.id);
  const until = Math.floor(Date.now() / 1000);
  const since = until - 30 * DAY;
  const s = keys.reportSeries;
  const n = responses();
  const series = [s.account(), s.inbox(inbox.id), s.agent(w.account.agent.id)];
  for (let i = 0; i < n; i++) {
    const at = since + Math.floor((i * 30 * DAY) / n);
    const rating = (i % 5) + 1;
    const fake = {
      ...survey,
      conversation_id: 1_000_000 + i,
      uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      message_id: 1_000_000 + i,
    };
    // Each response belongs to a survey of its own (a response is written with its survey's memory of it).
    await claimSurvey(fake);
    await saveResponse(
      fake,
      {
        id: fake.message_id,
        account_id: w.account.id,
        message_id: fake.message_id,
        conversation_id: conv.id,
        inbox_id: inbox.id,
        team_id: null,
        contact_id: contact.payload.contact.id,
        assigned_agent_id: w.account.agent.id,
        rating,
        feedback_message: i % 3 ? null : `feedback ${i}`,
        created_at: at,
        updated_at: at,
      },
      series,
    );
    await recordFact({
      fact: {
        id: `bench:csat:${w.account.id}:${i}`,
        account_id: w.account.id,
        conversation_id: null,
        contributions: series.map((x) => ({
          series: x,
          at,
          figures: { cs: 1, [`c${rating}`]: 1 },
        })),
        created_at: at,
      },
    });
  }
  // Seeded facts are logged like the pipeline's: folded now, so the reads measured are those of folded aggregates.
  await foldAll(w.account.id);
  return { uuid: conv.uuid, since, until };
}

const once = (w: BenchWorld) => (seeded ??= seed(w));
const range = (r: Seeded) => `since=${r.since}&until=${r.until}`;
const get = (path: (w: BenchWorld, r: Seeded) => string) => ({
  setup: once,
  request: (w: BenchWorld, r: Seeded) => ({ method: 'GET', path: path(w, r) }),
});
const answer = (method: 'PATCH' | 'PUT') => ({
  setup: once,
  request: (w: BenchWorld, r: Seeded, _p: unknown, i: number) => ({
    method,
    path: `/public/api/v1/csat_survey/${r.uuid}`,
    body: { message: { submitted_values: { csat_survey_response: { rating: (i % 5) + 1, feedback_message: `bench ${i}` } } } },
    client: client(w.baseUrl),
  }),
});

export const csat: Scenarios = {
  'GET /survey/responses/{conversation_uuid}': {
    setup: once,
    request: (w, r: Seeded) => ({ method: 'GET', path: `/survey/responses/${r.uuid}`, client: client(w.baseUrl) }),
  },
  'GET /public/api/v1/csat_survey/{conversation_uuid}': {
    setup: once,
    request: (w, r: Seeded) => ({ method: 'GET', path: `/public/api/v1/csat_survey/${r.uuid}`, client: client(w.baseUrl) }),
  },
  'PATCH /public/api/v1/csat_survey/{conversation_uuid}': answer('PATCH'),
  'PUT /public/api/v1/csat_survey/{conversation_uuid}': answer('PUT'),
  [`GET ${A}`]: get((w, r) => `${w.account.base}/csat_survey_responses?${range(r)}&page=2`),
  [`GET ${A}/metrics`]: get((w, r) => `${w.account.base}/csat_survey_responses/metrics?${range(r)}`),
  [`GET ${A}/download`]: get((w, r) => `${w.account.base}/csat_survey_responses/download?${range(r)}`),
};
