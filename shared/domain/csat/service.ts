import { findSurveyByUuid, listResponses, type ResponseFilter } from '#shared/db/repositories/csat.ts';
import { getContacts } from '#shared/db/repositories/contacts.ts';
import { getConversation } from '#shared/db/repositories/conversations.ts';
import { getInbox } from '#shared/db/repositories/inboxes.ts';
import { getMessage } from '#shared/db/repositories/messages.ts';
import * as keys from '#shared/db/keys.ts';
import { config } from '#shared/config.ts';
import { invalidField, notFound } from '#shared/errors.ts';
import type { AccountRecord } from '#shared/model/identity.ts';
import type { CsatResponseRecord } from '#shared/model/csat.ts';
import { addFigures, ceilQuarter, floorQuarter, type Figures } from '#shared/model/report-buckets.ts';
import { now } from '#shared/model/time.ts';
import { agentsJson } from '../agents/view.ts';
import { activeAccount } from '../accounts/suspension.ts';
import { submitAnswer } from '../public/service.ts';
import { readOf, sumsBetween } from '../reports/reader.ts';
import { csvLine } from '../reports/service.ts';
import type { CsatAnswer } from './schemas.ts';
import { responseJson, surveyJson } from './view.ts';

// CSAT for the contact (the survey page's public API) and for the team (Chatwoot's CsatSurveyResponsesController:
// the responses list, metrics and the CSV download), docs/csat.md. No request reads conversations: the list reads
// the range's response items, the metrics the reports' aggregates.

type Query = Record<string, string | undefined>;

/** Chatwoot's RESULTS_PER_PAGE. */
export const PAGE_SIZE = 25;

// ── the contact's side ────────────────────────────────────────────────────────────────────────────

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function surveyAt(uuid: string) {
  const survey = UUID.test(uuid) ? await findSurveyByUuid(uuid) : undefined;
  if (!survey || survey.message_id == null) throw notFound('CSAT survey');
  // A suspended account's survey answers 403, as its other public routes do.
  const [account, message, inbox] = await Promise.all([
    activeAccount(survey.account_id, 'CSAT survey'),
    getMessage(survey.account_id, survey.conversation_id, survey.message_id, true),
    getInbox(survey.account_id, survey.inbox_id),
  ]);
  if (!message) throw notFound('CSAT survey');
  return { survey, message, inbox, account };
}

/** `GET /public/api/v1/csat_survey/{uuid}`: the survey of a conversation, and its answer when given. */
export async function showSurvey(uuid: string) {
  const { message, inbox, account } = await surveyAt(uuid);
  return surveyJson(message, inbox, account.locale);
}

/**
 * `PATCH /public/api/v1/csat_survey/{uuid}`: the contact's rating and feedback, kept on the survey message as the
 * widget keeps it (a later answer replaces it; after Chatwoot's 14 days it is refused). The pipeline announces the
 * message (`message_updated`) and records the response.
 */
export async function answerSurvey(uuid: string, input: CsatAnswer) {
  const { survey, inbox, account } = await surveyAt(uuid);
  const c = await getConversation(survey.account_id, survey.conversation_id, true);
  if (!c) throw notFound('CSAT survey');
  const answer = input.message.submitted_values.csat_survey_response;
  const updated = await submitAnswer({ contact_id: c.contact_id }, c, survey.message_id!, {
    submitted_values: { csat_survey_response: { rating: answer.rating, feedback_message: answer.feedback_message ?? null } },
  });
  return surveyJson(updated, inbox, account.locale);
}

// ── the team's side ───────────────────────────────────────────────────────────────────────────────

function integer(q: Query, field: string, min = 0, digits = 15): number | undefined {
  const raw = q[field];
  if (raw === undefined || raw === '') return undefined;
  if (raw.length > digits || !/^\d+$/.test(raw) || Number(raw) < min) throw invalidField(field, 'must be a whole number');
  return Number(raw);
}

/** `user_ids` (or Rails' `user_ids[]`): one id, or several separated by commas (API Gateway joins repeated keys so). */
function ids(q: Query, field: string): number[] | undefined {
  const raw = q[field] ?? q[`${field}[]`];
  if (raw === undefined || raw === '') return undefined;
  const parts = raw.split(',').map((s) => s.trim());
  if (parts.length > 100 || parts.some((p) => !/^\d{1,15}$/.test(p))) throw invalidField(field, 'must be a list of ids');
  return [...new Set(parts.map(Number))];
}

/** Chatwoot's filters: since and until (a range only when both are given), agents, inbox, team and rating. */
function filterOf(q: Query): ResponseFilter {
  // Unix seconds (ten digits reach the year 2286).
  const since = integer(q, 'since', 0, 10);
  const until = integer(q, 'until', 0, 10);
  const both = since !== undefined && until !== undefined;
  if (both && until < since) throw invalidField('until', 'must not be before since');
  const rating = integer(q, 'rating');
  if (rating !== undefined && (rating < 1 || rating > 5)) throw invalidField('rating', 'must be an integer from 1 to 5');
  return {
    ...(both ? { since, until } : {}),
    agentIds: ids(q, 'user_ids'),
    inboxId: integer(q, 'inbox_id'),
    teamId: integer(q, 'team_id'),
    rating,
  };
}

/** The responses' contacts (one BatchGet) and agents (agent JSON, one more), by id. */
async function peopleOf(accountId: number, rows: CsatResponseRecord[]) {
  const contactIds = [...new Set(rows.map((r) => r.contact_id))];
  const agentIds = [...new Set(rows.flatMap((r) => (r.assigned_agent_id ? [r.assigned_agent_id] : [])))];
  const [contacts, agents] = await Promise.all([getContacts(accountId, contactIds), agentsJson(accountId, agentIds)]);
  const agentById = new Map(agents.map((a) => [a.id, a]));
  return {
    contact: (r: CsatResponseRecord) => contacts[contactIds.indexOf(r.contact_id)],
    agent: (r: CsatResponseRecord) => (r.assigned_agent_id ? agentById.get(r.assigned_agent_id) : undefined),
  };
}

async function responsesJson(accountId: number, rows: CsatResponseRecord[]) {
  const people = await peopleOf(accountId, rows);
  return rows.map((r) => responseJson(r, people.contact(r), people.agent(r)));
}

/** `GET …/csat_survey_responses`: a bare array, 25 a page, oldest first; reads at most the pages up to this one. */
export async function listSurveyResponses(account: AccountRecord, q: Query) {
  const page = integer(q, 'page', 1) ?? 1;
  if (page > 400) throw invalidField('page', 'must be at most 400');
  const rows = await listResponses(account.id, filterOf(q), page * PAGE_SIZE);
  return responsesJson(account.id, rows.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE));
}

const RATINGS = [1, 2, 3, 4, 5] as const;

/** The instants the aggregates sum between: the range (quarter hours), else the account's whole life. */
function spanOf(account: AccountRecord, f: ResponseFilter): [number, number] {
  if (f.since !== undefined && f.until !== undefined) return [floorQuarter(f.since), ceilQuarter(f.until + 1)];
  return [floorQuarter(Math.min(account.created_at ?? 0, now())), ceilQuarter(now() + 1)];
}

/**
 * `GET …/csat_survey_responses/metrics`: `total_count`, `ratings_count` (`{rating: count}` of the ratings given)
 * and `total_sent_messages_count` (surveys sent in the range). Figures come from the reports' aggregates: the
 * account's series, or the inbox's, the team's or the agents' when one of those filters is given; two of them at
 * once (no series holds that) count the range's response items instead.
 */
export async function surveyMetrics(account: AccountRecord, q: Query) {
  const f = filterOf(q);
  const span = spanOf(account, f);
  const s = keys.reportSeries;
  const dims = [f.agentIds?.length, f.inboxId !== undefined, f.teamId !== undefined].filter(Boolean).length;
  const sent = sumsBetween(account.id, s.account(), span, readOf(account, ['cs'])).then(([x]) => x?.cs ?? 0);
  let ratings: Figures = {};
  if (dims > 1) {
    for (const r of await listResponses(account.id, f)) {
      const k = `c${r.rating}` as 'c1';
      ratings[k] = (ratings[k] ?? 0) + 1;
    }
  } else {
    const series = f.agentIds?.length
      ? f.agentIds.map((id) => s.agent(id))
      : [f.inboxId !== undefined ? s.inbox(f.inboxId) : f.teamId !== undefined ? s.team(f.teamId) : s.account()];
    const read = readOf(
      account,
      RATINGS.map((r) => `c${r}` as const),
    );
    const sums = await Promise.all(series.map((x) => sumsBetween(account.id, x, span, read)));
    ratings = sums.reduce<Figures>((acc, [x]) => addFigures(acc, x ?? {}), {});
  }
  const ratings_count: Record<string, number> = {};
  for (const r of RATINGS) {
    const n = ratings[`c${r}`] ?? 0;
    if (n > 0 && (f.rating === undefined || f.rating === r)) ratings_count[String(r)] = n;
  }
  return {
    total_count: Object.values(ratings_count).reduce((a, b) => a + b, 0),
    ratings_count,
    total_sent_messages_count: await sent,
  };
}

const CSV_HEADERS = [
  'Agent Name',
  'Rating',
  'Feedback Comment',
  'Contact Name',
  'Contact Email Address',
  'Contact Phone Number',
  'Link to the conversation',
  'Recorded date',
];

/** Ruby's Time#to_s in UTC, as Chatwoot's CSV prints `created_at`. */
const recordedAt = (t: number) => `${new Date(t * 1000).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
const day = (t: number) => new Date(t * 1000).toISOString().slice(0, 10);

/** `GET …/csat_survey_responses/download`: the filtered responses as Chatwoot's CSV (`csat_report.csv`). */
export async function downloadSurveyResponses(account: AccountRecord, q: Query) {
  const f = filterOf(q);
  const rows = await listResponses(account.id, f);
  const people = await peopleOf(account.id, rows);
  let csv = csvLine(CSV_HEADERS);
  for (const r of rows) {
    const agent = people.agent(r);
    const contact = people.contact(r);
    csv += csvLine([
      agent ? `${agent.name} (${agent.email})` : null,
      r.rating,
      r.feedback_message || null,
      contact?.name || null,
      contact?.email || null,
      contact?.phone_number || null,
      `${config().frontendUrl}/app/accounts/${account.id}/conversations/${r.conversation_id}`,
      recordedAt(r.created_at),
    ]);
  }
  if (f.since !== undefined && f.until !== undefined) csv += csvLine([`Reporting period ${day(f.since)} to ${day(f.until)}`]);
  return { filename: 'csat_report.csv', csv };
}
