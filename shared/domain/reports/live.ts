import { listConversationCounters } from '#shared/db/repositories/counts.ts';
import { listUnattended } from '#shared/db/repositories/reports.ts';
import { invalidField } from '#shared/errors.ts';
import type { AccountRecord } from '#shared/model/identity.ts';
import { pendingReports } from './reader.ts';
import { liveCounts, type Query } from './service.ts';

// Chatwoot's LiveReportsController (`/api/v2/accounts/{id}/live_reports/…`): live counts of the account's
// conversations, optionally of one team, from the conversation counters (one item per inbox, team,
// status and assignee in use) and the pipeline's unattended items (one per open conversation waiting
// for a reply, carrying its assignee and team): two Queries, never the conversations.

function teamOf(q: Query): number | undefined {
  const raw = q.team_id;
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d{1,15}$/.test(raw)) throw invalidField('team_id', 'must be an integer');
  return Number(raw);
}

async function liveRows(accountId: number, teamId: number | undefined) {
  const [counters, unattended] = await Promise.all([
    listConversationCounters(accountId),
    pendingReports(accountId).then((p) => listUnattended(accountId, p)),
  ]);
  const inTeam = (t: number | null) => teamId === undefined || t === teamId;
  return {
    counters: counters.filter((c) => inTeam(c.team_id ?? null)),
    unattended: unattended.filter((u) => inTeam(u.team_id)),
  };
}

/** `GET …/live_reports/conversation_metrics`: open, unattended, unassigned and pending counts. */
export async function liveConversationMetrics(account: AccountRecord, q: Query) {
  const { counters, unattended } = await liveRows(account.id, teamOf(q));
  const { open, unassigned, pending } = liveCounts(counters);
  return { open, unattended: unattended.length, unassigned, pending };
}

const GROUPS = ['team_id', 'assignee_id'] as const;

/** `GET …/live_reports/grouped_conversation_metrics`: the open counts per team or per assignee (null: none). */
export async function groupedConversationMetrics(account: AccountRecord, q: Query) {
  const group = q.group_by as (typeof GROUPS)[number];
  if (!GROUPS.includes(group)) throw invalidField('group_by', 'invalid group_by');
  const { counters, unattended } = await liveRows(account.id, teamOf(q));
  const rows = new Map<number | null, { open: number; unattended: number; unassigned: number }>();
  const row = (k: number | null) => rows.get(k) ?? rows.set(k, { open: 0, unattended: 0, unassigned: 0 }).get(k)!;
  for (const c of counters) {
    if (c.status !== 'open' || c.count === 0) continue;
    const r = row(c[group] ?? null);
    r.open += c.count;
    if (c.assignee_id == null) r.unassigned += c.count;
  }
  for (const u of unattended) {
    const k = group === 'team_id' ? u.team_id : u.assignee_id || null;
    // Chatwoot lists the groups that have open conversations.
    if (rows.has(k)) rows.get(k)!.unattended += 1;
  }
  return [...rows]
    .filter(([, r]) => r.open > 0)
    .sort(([a], [b]) => (a ?? Infinity) - (b ?? Infinity))
    .map(([k, r]) => ({ ...r, [group]: k }));
}
