import { nextId } from '#shared/db/ids.ts';
import { deleteAppliedSla, getAppliedSla, getSlaPolicy, saveAppliedSla } from '#shared/db/repositories/sla.ts';
import { retryStale } from '#shared/db/repositories/versioned.ts';
import { log } from '#shared/log.ts';
import type { ConversationRecord } from '#shared/model/conversations.ts';
import type { AppliedSlaRecord, SlaEventRecord, SlaEventType, SlaPolicyRecord, Wakeup } from '#shared/model/sla.ts';
import { scheduleWakeup } from '#shared/queues/wakeups.ts';
import { fileSigningReady } from '#shared/storage/file-urls.ts';
import { frozenAccounts } from '../accounts/suspension.ts';
import type { DomainEvent } from '../events/domain-events.ts';
import { conversationContext, type ConversationContext } from '../events/payloads.ts';
import { notifySlaMiss } from '../notifications/pipeline.ts';
import { evaluateSla } from './evaluate.ts';
import { listedConversation, sameListed } from './listed.ts';

// The pipeline's SLA stage (docs/sla.md): a conversation's change applies its policy (the applied SLA, made when
// `sla_policy_id` is set or changed) and evaluates it; each deadline ahead gets one wake-up (shared/queues/wakeups.ts),
// whose function evaluates again at that instant, so a miss is found on time without scanning for due work. A miss
// is kept on the applied SLA (Chatwoot's sla_events) and notified. The applied SLA also keeps the conversation's fields
// that applied_slas filters and shows (listed.ts), so that list reads no conversation.

/** Evaluated, and the listed fields refreshed; a contact merge moves the conversation to another contact. */
const EVALUATED = new Set(['conversation_created', 'conversation_updated', 'conversation_contact_changed']);

const NOTIFICATION: Record<SlaEventType, 'sla_missed_first_response' | 'sla_missed_next_response' | 'sla_missed_resolution'> = {
  frt: 'sla_missed_first_response',
  nrt: 'sla_missed_next_response',
  rt: 'sla_missed_resolution',
};

/** Chatwoot's `SlaPolicy#push_event_data` (a miss notification's secondary actor). */
const policyPushData = (p: SlaPolicyRecord) => ({
  id: p.id,
  name: p.name,
  frt: p.first_response_time_threshold,
  nrt: p.next_response_time_threshold,
  rt: p.resolution_time_threshold,
});

/** The events stage: conversations with a policy, on their creation and announced changes. */
export async function runSla(event: DomainEvent, ctx: ConversationContext | undefined): Promise<void> {
  // A deleted conversation's applied SLA goes with it (its wake-ups then find nothing).
  if (event.name === 'conversation_deleted' && event.conversation) {
    if (event.conversation.sla_policy_id != null) await deleteAppliedSla(event.conversation.account_id, event.conversation.id);
    return;
  }
  if (!ctx || !EVALUATED.has(event.name)) return;
  if (ctx.conversation.sla_policy_id != null) await evaluateConversation(ctx);
  else if ('sla_policy_id' in event.changes) await detach(ctx.conversation);
}

/** The policy taken off: the applied SLA stays (a policy applied again goes on with it) but leaves applied_slas. */
async function detach(c: ConversationRecord): Promise<void> {
  await retryStale(async (consistent) => {
    const stored = await getAppliedSla(c.account_id, c.id, consistent);
    const listed = listedConversation(c);
    if (!stored || sameListed(stored.conversation, listed)) return;
    await saveAppliedSla(stored, { ...stored, conversation: listed, version: stored.version + 1 });
  });
}

/**
 * The wake-up function: the conversation's SLA evaluated at a deadline (a frozen account's is not). The dispatcher has
 * scheduled every deadline ahead, so this evaluation schedules nothing, but after a wake-up that came early (a local
 * timer caps its delay), which asks for its own deadline again.
 */
export async function wakeUp(w: Wakeup, suspended = frozenAccounts()): Promise<void> {
  if (await suspended(w.account_id)) return;
  await fileSigningReady();
  const ctx = await conversationContext(w.account_id, w.conversation_id);
  if (!ctx || ctx.conversation.sla_policy_id == null) return;
  await evaluateConversation(ctx, Date.now() / 1000 < w.at ? w.at : undefined);
}

async function evaluateConversation(ctx: ConversationContext, early?: number): Promise<void> {
  const c = ctx.conversation;
  const policy = await getSlaPolicy(c.account_id, c.sla_policy_id!);
  // A deleted policy is evaluated no further.
  if (!policy) return;
  const inbox = ctx.refs.inboxes.get(c.inbox_id);
  const { applied, misses } = await retryStale(async (consistent) => {
    const t = Date.now() / 1000;
    const stored = await getAppliedSla(c.account_id, c.id, consistent);
    // A new policy on the conversation replaces the applied SLA (one per conversation, docs/sla.md).
    const current: AppliedSlaRecord =
      stored && stored.sla_policy_id === policy.id
        ? stored
        : {
            id: await nextId('applied_sla'),
            account_id: c.account_id,
            conversation_id: c.id,
            inbox_id: c.inbox_id,
            sla_policy_id: policy.id,
            sla_status: 'active',
            sla_events: [],
            wakes: [],
            created_at: Math.floor(t),
            updated_at: Math.floor(t),
            version: (stored?.version ?? 0) + 1,
          };
    const verdict = evaluateSla({ policy, conversation: c, schedule: inbox, status: current.sla_status, past: current.sla_events, now: t });
    const lastIncoming = c.last_non_activity_message?.message_type === 0 ? c.last_non_activity_message.id : undefined;
    const events: SlaEventRecord[] = [];
    for (const m of verdict.misses) {
      events.push({
        id: await nextId('sla_event'),
        event_type: m.event_type,
        meta: m.event_type === 'nrt' && lastIncoming !== undefined ? { message_id: lastIncoming } : {},
        ...(m.waiting_since !== undefined ? { waiting_since: m.waiting_since } : {}),
        created_at: Math.floor(t),
      });
    }
    // One wake-up per deadline ahead, asked for once (an early one's again).
    const known = (current.wakes ?? []).filter((at) => at > t);
    for (const at of verdict.ahead) {
      if (!known.includes(at) || at === early) await scheduleWakeup({ account_id: c.account_id, conversation_id: c.id, at });
    }
    const wakes = verdict.ahead;
    const listed = listedConversation(c);
    const same =
      current === stored &&
      sameListed(current.conversation, listed) &&
      !events.length &&
      verdict.status === current.sla_status &&
      wakes.length === (current.wakes ?? []).length &&
      wakes.every((at, i) => at === current.wakes[i]);
    if (same) return { applied: current, misses: [] };
    const next: AppliedSlaRecord = {
      ...current,
      inbox_id: c.inbox_id,
      sla_status: verdict.status,
      sla_events: [...current.sla_events, ...events],
      wakes,
      conversation: listed,
      updated_at: events.length || verdict.status !== current.sla_status ? Math.floor(t) : current.updated_at,
      version: current === stored ? current.version + 1 : current.version,
    };
    await saveAppliedSla(stored, next);
    return { applied: next, misses: events };
  });
  for (const e of misses) {
    log.warn('SLA missed', { accountId: c.account_id, conversationId: c.id, slaPolicyId: policy.id, type: e.event_type });
    await notifySlaMiss(`sla:${applied.id}:${e.id}`, ctx, NOTIFICATION[e.event_type], { id: policy.id, data: policyPushData(policy) });
  }
}
