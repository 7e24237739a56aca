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
export const appliedSlaJson = (a: AppliedSlaRecord, p: SlaPolicyRecord | undefined) => ({
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
export const slaEventsJson = (a: AppliedSlaRecord) =>
  a.sla_events.map((e) => ({ id: e.id, event_type: e.event_type, meta: e.meta, created_at: e.created_at, updated_at: e.created_at }));
