import type { SlaEventType, SlaStatus } from '#shared/model/sla.ts';
import { addBusinessSeconds, type WorkingSchedule } from '../reports/business-hours.ts';

// The rules of Chatwoot's Sla::EvaluateAppliedSlaService, pure: which deadlines have passed (a miss each, once), what
// the applied SLA's status becomes, and when the next deadline falls (its wake-up). Deadlines:
//  - first response (frt): the conversation's creation + the threshold, met by a first reply at or before it;
//  - next response (nrt): once replied to, `waiting_since` (the contact wrote again) + the threshold; one miss per wait;
//  - resolution (rt): the conversation's creation + the threshold, unless resolved.
// A policy `only_during_business_hours` counts the inbox's working hours only (addBusinessSeconds); Chatwoot stores the
// flag but counts every hour (docs/sla.md).

export interface SlaThresholds {
  first_response_time_threshold: number | null;
  next_response_time_threshold: number | null;
  resolution_time_threshold: number | null;
  only_during_business_hours: boolean;
}

export interface SlaConversation {
  created_at: number;
  status: string;
  first_reply_created_at: number | null;
  waiting_since: number | null;
}

export interface PastMiss {
  event_type: SlaEventType;
  /** For nrt: the wait it was for. */
  waiting_since?: number;
}

export interface SlaVerdict {
  status: SlaStatus;
  /** New misses, in the order the deadlines fall. */
  misses: { event_type: SlaEventType; waiting_since?: number; due: number }[];
  /** The deadlines still ahead, soonest first (a wake-up is due at each). */
  ahead: number[];
}

/** When a threshold counted from `start` runs out; null when it never does (a schedule that never opens). */
export function deadline(p: SlaThresholds, schedule: WorkingSchedule | undefined, start: number, threshold: number): number | null {
  return p.only_during_business_hours ? addBusinessSeconds(schedule, start, threshold) : start + threshold;
}

const isSet = (n: number | null | undefined): n is number => typeof n === 'number';

export function evaluateSla(input: {
  policy: SlaThresholds;
  conversation: SlaConversation;
  schedule: WorkingSchedule | undefined;
  status: SlaStatus;
  past: PastMiss[];
  now: number;
}): SlaVerdict {
  const { policy: p, conversation: c, schedule, now, past } = input;
  // Hit and missed are final (Chatwoot evaluates active ones only).
  if (input.status === 'hit' || input.status === 'missed') return { status: input.status, misses: [], ahead: [] };
  const resolved = c.status === 'resolved';
  const missed = (type: SlaEventType, waiting?: number) =>
    past.some((m) => m.event_type === type && (type !== 'nrt' || m.waiting_since === waiting));
  const misses: SlaVerdict['misses'] = [];
  const ahead: number[] = [];
  const check = (type: SlaEventType, due: number | null, waiting?: number) => {
    if (due === null || missed(type, waiting)) return;
    if (now >= due) misses.push({ event_type: type, due, ...(waiting !== undefined ? { waiting_since: waiting } : {}) });
    else ahead.push(due);
  };
  if (isSet(p.first_response_time_threshold)) {
    const due = deadline(p, schedule, c.created_at, p.first_response_time_threshold);
    // A first reply after the deadline is a miss (found at the deadline by its wake-up, or at the reply).
    if (!(due !== null && c.first_reply_created_at !== null && c.first_reply_created_at <= due)) check('frt', due);
  }
  if (isSet(p.next_response_time_threshold) && c.first_reply_created_at !== null && c.waiting_since !== null) {
    check('nrt', deadline(p, schedule, c.waiting_since, p.next_response_time_threshold), c.waiting_since);
  }
  if (isSet(p.resolution_time_threshold) && !resolved) {
    check('rt', deadline(p, schedule, c.created_at, p.resolution_time_threshold));
  }
  misses.sort((a, b) => a.due - b.due);
  const withMisses = misses.length > 0 || input.status === 'active_with_misses';
  if (resolved) return { status: withMisses ? 'missed' : 'hit', misses, ahead: [] };
  return { status: withMisses ? 'active_with_misses' : 'active', misses, ahead: [...new Set(ahead)].sort((a, b) => a - b) };
}
