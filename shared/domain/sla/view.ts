import type { AppliedSlaCopy } from '#shared/model/conversations.ts';
import type { AppliedSlaRecord, SlaPolicyRecord } from '#shared/model/sla.ts';

/** Chatwoot's `_sla_policy.json.jbuilder`. */
export const slaPolicyJson = (p: SlaPolicyRecord) => ({
  id: p.id,
  name: p.name,
  description: p.description,
  first_response_time_threshold: p.first_response_time_threshold,
  next_response_time_threshold: p.next_response_time_threshold,
  only_during_business_hours: p.only_during_business_hours,
  resolution_time_threshold: p.resolution_time_threshold,
});

/** Chatwoot's `AppliedSla#push_event_data` (the conversation's `applied_sla`, applied_slas' `applied_sla`). */
export const appliedSlaJson = (a: AppliedSlaRecord | AppliedSlaCopy, p: SlaPolicyRecord | undefined) => ({
  id: a.id,
  sla_id: a.sla_policy_id,
  sla_status: a.sla_status,
  created_at: a.created_at,
  updated_at: a.updated_at,
  sla_description: p?.description ?? null,
  sla_name: p?.name ?? null,
  sla_first_response_time_threshold: p?.first_response_time_threshold ?? null,
  sla_next_response_time_threshold: p?.next_response_time_threshold ?? null,
  sla_only_during_business_hours: p?.only_during_business_hours ?? false,
  sla_resolution_time_threshold: p?.resolution_time_threshold ?? null,
});

/** Chatwoot's `_sla_event.json.jbuilder`. */
export const slaEventsJson = (a: Pick<AppliedSlaRecord | AppliedSlaCopy, 'sla_events'>) =>
  a.sla_events.map((e) => ({ id: e.id, event_type: e.event_type, meta: e.meta, created_at: e.created_at, updated_at: e.created_at }));

/** What the conversation item keeps of its applied SLA (ConversationRecord.applied_sla). */
export const appliedSlaCopy = (a: AppliedSlaRecord): AppliedSlaCopy => ({
  id: a.id,
  sla_policy_id: a.sla_policy_id,
  sla_status: a.sla_status,
  created_at: a.created_at,
  updated_at: a.updated_at,
  sla_events: a.sla_events.map(({ waiting_since: _, ...e }) => e),
});

/** Whether two copies show the same (compared field by field: a map read back from the table keeps no key order). */
export function sameCopy(a: AppliedSlaCopy | null | undefined, b: AppliedSlaCopy): boolean {
  if (!a) return false;
  const fields = ['id', 'sla_policy_id', 'sla_status', 'created_at', 'updated_at'] as const;
  if (fields.some((f) => a[f] !== b[f]) || a.sla_events.length !== b.sla_events.length) return false;
  return a.sla_events.every((e, i) => {
    const o = b.sla_events[i];
    return e.id === o.id && e.event_type === o.event_type && e.created_at === o.created_at && e.meta?.message_id === o.meta?.message_id;
  });
}
