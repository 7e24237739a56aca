import type { ConversationRecord } from '#shared/model/conversations.ts';
import type { AppliedSlaConversation } from '#shared/model/sla.ts';

/** What `applied_slas` needs of a conversation (kept on its applied SLA by the SLA stage, docs/sla.md#applied_slas). */
export const listedConversation = (c: ConversationRecord): AppliedSlaConversation => ({
  sla_policy_id: c.sla_policy_id ?? null,
  contact_id: c.contact_id,
  assignee_id: c.assignee_id,
  team_id: c.team_id,
  labels: c.labels,
});

export const sameListed = (a: AppliedSlaConversation | undefined, b: AppliedSlaConversation) =>
  a !== undefined &&
  a.sla_policy_id === b.sla_policy_id &&
  a.contact_id === b.contact_id &&
  a.assignee_id === b.assignee_id &&
  a.team_id === b.team_id &&
  a.labels.length === b.labels.length &&
  a.labels.every((l, i) => l === b.labels[i]);
