import { getMany } from '#shared/db/repositories/common.ts';
import { getContacts } from '#shared/db/repositories/contacts.ts';
import { getConversations } from '#shared/db/repositories/conversations.ts';
import { getUsers } from '#shared/db/repositories/identity.ts';
import { getInboxes } from '#shared/db/repositories/inboxes.ts';
import { listAppliedSlas, listSlaPolicies } from '#shared/db/repositories/sla.ts';
import { getTeams } from '#shared/db/repositories/teams.ts';
import * as keys from '#shared/db/keys.ts';
import { config } from '#shared/config.ts';
import { invalidField } from '#shared/errors.ts';
import type { AccountRecord, AccountUserRecord } from '#shared/model/identity.ts';
import type { AppliedSlaConversation, AppliedSlaRecord, SlaPolicyRecord } from '#shared/model/sla.ts';
import { userPushJson } from '../conversations/view.ts';
import { csvLine } from '../reports/service.ts';
import { listedConversation } from './listed.ts';
import { appliedSlaJson, slaEventsJson } from './view.ts';

// Chatwoot's AppliedSlasController (administrators): the misses (applied SLAs missed, or active with misses) with
// their conversations, the metrics, and the CSV. Reads: the range's applied SLAs (AP363, filtered by inbox and policy
// in DynamoDB; each keeps its conversation's team, assignee, labels and contact), and for a page or the CSV the people
// and names shown; no conversation (but those of applied SLAs stored before they kept those fields).

type Query = Record<string, string | undefined>;

/** Chatwoot's RESULTS_PER_PAGE. */
export const PAGE_SIZE = 25;

function integer(q: Query, field: string, digits = 15): number | undefined {
  const raw = q[field];
  if (raw === undefined || raw === '') return undefined;
  if (raw.length > digits || !/^\d+$/.test(raw)) throw invalidField(field, 'must be a whole number');
  return Number(raw);
}

/** `label_list` (or `label_list[]`): one label, or several separated by commas (API Gateway joins repeated keys so). */
function labels(q: Query): string[] | undefined {
  const raw = q.label_list ?? q['label_list[]'];
  if (raw === undefined || raw === '') return undefined;
  const list = raw.split(',').map((s) => s.trim().toLowerCase());
  if (list.length > 100 || list.some((l) => l.length > 255)) throw invalidField('label_list', 'must be a list of labels');
  return list;
}

interface Filter {
  since?: number;
  until?: number;
  inboxId?: number;
  teamId?: number;
  slaPolicyId?: number;
  agentId?: number;
  labels?: string[];
}

function filterOf(q: Query): Filter {
  const since = integer(q, 'since', 10);
  const until = integer(q, 'until', 10);
  const both = since !== undefined && until !== undefined;
  if (both && until < since) throw invalidField('until', 'must not be before since');
  return {
    ...(both ? { since, until } : {}),
    inboxId: integer(q, 'inbox_id'),
    teamId: integer(q, 'team_id'),
    slaPolicyId: integer(q, 'sla_policy_id'),
    agentId: integer(q, 'assigned_agent_id'),
    labels: labels(q),
  };
}

interface Row {
  applied: AppliedSlaRecord;
  /** The conversation's listed fields: kept on the applied SLA, or read for one stored before they were. */
  conversation: AppliedSlaConversation;
  policy: SlaPolicyRecord;
}

const isMiss = (a: AppliedSlaRecord) => a.sla_status === 'missed' || a.sla_status === 'active_with_misses';

/**
 * The filtered applied SLAs with their conversations' listed fields and policies. Chatwoot lists only applied SLAs
 * whose conversation and policy still exist; a label filter keeps conversations with every label given (its
 * cached_label_list match). The conversation's fields are those the SLA stage kept on the applied SLA (a deleted
 * conversation's applied SLA goes with it): only an applied SLA stored before they were kept reads its conversation.
 */
async function rowsOf(accountId: number, f: Filter): Promise<Row[]> {
  const [applied, policies] = await Promise.all([
    listAppliedSlas(accountId, { since: f.since, until: f.until, inboxId: f.inboxId, slaPolicyId: f.slaPolicyId }),
    listSlaPolicies(accountId),
  ]);
  const byPolicy = new Map(policies.map((p) => [p.id, p]));
  const live = applied.filter((a) => byPolicy.has(a.sla_policy_id));
  const older = live.filter((a) => !a.conversation);
  const read = await getConversations(
    accountId,
    older.map((a) => a.conversation_id),
  );
  const readOf = new Map(older.map((a, i) => [a, read[i]]));
  const rows: Row[] = [];
  for (const a of live) {
    const stored = readOf.get(a);
    const c = a.conversation ?? (stored ? listedConversation(stored) : undefined);
    // A conversation whose policy changed since belongs to its newer applied SLA only.
    if (!c || c.sla_policy_id !== a.sla_policy_id) continue;
    if (f.teamId !== undefined && c.team_id !== f.teamId) continue;
    if (f.agentId !== undefined && c.assignee_id !== f.agentId) continue;
    if (f.labels && !f.labels.every((l) => c.labels.includes(l))) continue;
    rows.push({ applied: a, conversation: c, policy: byPolicy.get(a.sla_policy_id)! });
  }
  return rows;
}

/** `GET …/applied_slas`: the misses, 25 a page, with their conversations and SLA events. */
export async function listMissedSlas(account: AccountRecord, q: Query) {
  const page = integer(q, 'page') ?? 1;
  if (page < 1 || page > 400) throw invalidField('page', 'must be from 1 to 400');
  const missed = (await rowsOf(account.id, filterOf(q))).filter((r) => isMiss(r.applied));
  const rows = missed.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
  const contactIds = [...new Set(rows.map((r) => r.conversation.contact_id))];
  const assigneeIds = [...new Set(rows.flatMap((r) => (r.conversation.assignee_id !== null ? [r.conversation.assignee_id] : [])))];
  const [contacts, users, memberships] = await Promise.all([
    getContacts(account.id, contactIds),
    getUsers(assigneeIds),
    getMany<AccountUserRecord>(assigneeIds.map((id) => keys.accountUser(account.id, id))),
  ]);
  return {
    payload: rows.map(({ applied, conversation: c, policy }) => {
      const contact = contacts[contactIds.indexOf(c.contact_id)];
      const at = c.assignee_id !== null ? assigneeIds.indexOf(c.assignee_id) : -1;
      const user = at >= 0 ? users[at] : undefined;
      return {
        applied_sla: appliedSlaJson(applied, policy),
        conversation: {
          id: applied.conversation_id,
          contact: contact ? { name: contact.name } : {},
          labels: c.labels,
          ...(user ? { assignee: userPushJson({ user, membership: memberships[at] }) } : {}),
        },
        sla_events: slaEventsJson(applied),
      };
    }),
    meta: { count: missed.length, current_page: page },
  };
}

/** `GET …/applied_slas/metrics`: applied SLAs, misses among them, and the hit rate (Chatwoot's rounding and text). */
export async function appliedSlaMetrics(account: AccountRecord, q: Query) {
  const rows = await rowsOf(account.id, filterOf(q));
  const total = rows.length;
  const misses = rows.filter((r) => isMiss(r.applied)).length;
  const rate = misses === 0 ? '100%' : `${Math.round(((total - misses) / total) * 100 * 100) / 100}%`;
  return { total_applied_slas: total, number_of_sla_misses: misses, hit_rate: rate };
}

const CSV_HEADERS = ['Conversation ID', 'SLA Policy', 'Assignee', 'Team', 'Inbox', 'Labels', 'Link to the Conversation', 'Breached Events'];

/** `GET …/applied_slas/download`: the misses as Chatwoot's CSV (`breached_conversation.csv`). */
export async function downloadMissedSlas(account: AccountRecord, q: Query) {
  const rows = (await rowsOf(account.id, filterOf(q))).filter((r) => isMiss(r.applied));
  const ids = (pick: (r: Row) => number | null) => [...new Set(rows.flatMap((r) => (pick(r) !== null ? [pick(r)!] : [])))];
  const [assigneeIds, teamIds, inboxIds] = [
    ids((r) => r.conversation.assignee_id),
    ids((r) => r.conversation.team_id),
    ids((r) => r.applied.inbox_id),
  ];
  const [users, teams, inboxes] = await Promise.all([
    getUsers(assigneeIds),
    getTeams(account.id, teamIds),
    getInboxes(account.id, inboxIds),
  ]);
  const name = <T extends { name: string }>(list: (T | undefined)[], idList: number[], id: number | null) =>
    id === null ? null : (list[idList.indexOf(id)]?.name ?? null);
  let csv = csvLine(CSV_HEADERS);
  for (const { applied, conversation: c, policy } of rows) {
    csv += csvLine([
      applied.conversation_id,
      policy.name,
      name(users, assigneeIds, c.assignee_id),
      name(teams, teamIds, c.team_id),
      name(inboxes, inboxIds, applied.inbox_id),
      c.labels.join(', '),
      `${config().frontendUrl}/app/accounts/${account.id}/conversations/${applied.conversation_id}`,
      applied.sla_events.map((e) => e.event_type).join(', '),
    ]);
  }
  return { filename: 'breached_conversation.csv', csv };
}
