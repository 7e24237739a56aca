import { getSlaPolicy } from '#shared/db/repositories/sla.ts';
import { invalidField } from '#shared/errors.ts';
import type { ConversationActor, ConversationRecord } from '#shared/model/conversations.ts';
import { mutate, touch } from '../conversations/mutation.ts';

// Applying a policy sets the conversation's `sla_policy_id` (an announced change); the pipeline makes the applied SLA
// from it (shared/domain/sla/pipeline.ts), as Chatwoot's conversation callback does.

/**
 * `PATCH /conversations/{id}` with `sla_policy_id`: the policy (of the account, else 422) or null to take it off.
 * With `onlyWhenNone` (the automation action `add_sla`), a conversation that has a policy keeps it and a policy that
 * is gone is skipped, as Chatwoot's action does.
 */
export async function applySlaPolicy(
  c: ConversationRecord,
  actor: ConversationActor,
  policyId: number | null,
  opts: { onlyWhenNone?: boolean } = {},
): Promise<ConversationRecord> {
  if (opts.onlyWhenNone && c.sla_policy_id != null) return c;
  if (policyId !== null && policyId !== c.sla_policy_id && !(await getSlaPolicy(c.account_id, policyId))) {
    if (opts.onlyWhenNone) return c;
    throw invalidField('sla_policy_id', 'is not an SLA policy of the account');
  }
  const { conversation } = await mutate(c, (cur) => {
    if ((cur.sla_policy_id ?? null) === policyId || (opts.onlyWhenNone && cur.sla_policy_id != null)) return { result: undefined };
    // The old applied SLA leaves the conversation's JSON at once; the SLA stage copies the new one when it makes it.
    return { next: touch(cur, actor, { sla_policy_id: policyId, applied_sla: null }), result: undefined };
  });
  return conversation;
}
