import { getSlaPolicy } from '#shared/db/repositories/sla.ts';
import { invalidField } from '#shared/errors.ts';
import type { ConversationActor, ConversationRecord } from '#shared/model/conversations.ts';
import { actorName } from '../conversations/actor-name.ts';
import { mutate, touch } from '../conversations/mutation.ts';
import { activityMessage } from '../messages/build.ts';

// Applying a policy sets the conversation's `sla_policy_id` (an announced change); the pipeline makes the applied SLA
// from it (shared/domain/sla/pipeline.ts), as Chatwoot's conversation callback does. The change writes Chatwoot's
// activity messages in the same transaction (docs/sla.md#applying-a-policy).

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
  const policy = policyId !== null && policyId !== c.sla_policy_id ? await getSlaPolicy(c.account_id, policyId) : undefined;
  if (policyId !== null && policyId !== c.sla_policy_id && !policy) {
    if (opts.onlyWhenNone) return c;
    throw invalidField('sla_policy_id', 'is not an SLA policy of the account');
  }
  const name = await actorName(c.account_id, actor);
  const { conversation } = await mutate(c, async (cur) => {
    const before = cur.sla_policy_id ?? null;
    if (before === policyId || (opts.onlyWhenNone && before !== null)) return { result: undefined };
    // "removed" names the policy taken off (Chatwoot's names the conversation's policy after the change: none).
    const removed = before !== null ? await getSlaPolicy(c.account_id, before) : undefined;
    const messages = [
      ...(before !== null ? [await activityMessage(cur, `${name} removed SLA policy ${removed?.name ?? ''}`, actor)] : []),
      ...(policy ? [await activityMessage(cur, `${name} added SLA policy ${policy.name}`, actor)] : []),
    ];
    // The old applied SLA leaves the conversation's JSON at once; the SLA stage copies the new one when it makes it.
    return { next: touch(cur, actor, { sla_policy_id: policyId, applied_sla: null }), messages, result: undefined };
  });
  return conversation;
}
