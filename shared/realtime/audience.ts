import type { CableSubscription } from '#shared/model/cable.ts';
import { frames, type Frame } from './protocol.ts';

// Who hears an event (Chatwoot's ActionCableListener): administrators hear every conversation of their
// account, agents those of the inboxes they are members of, a contact only its own conversations and
// never a private note or an activity message; contact events go to every user of the account.

export interface Audience {
  /** Every user of the account (contact events, presence). */
  allUsers?: boolean;
  /** These users only (their notifications). */
  userIds?: number[];
  /** A conversation's inbox: its members and the account's administrators hear it. */
  inboxId?: number;
  /** Contact inbox pubsub tokens that hear it. */
  contactTokens?: string[];
  /** The contact whose HMAC-verified contact inboxes all hear it (Chatwoot: a verified identity spans inboxes). */
  verifiedContactId?: number;
  /** The typist never hears their own typing. */
  exceptUserId?: number;
  exceptContactId?: number;
}

export interface CableEvent {
  /** Chatwoot's dotted name: `message.created`, `conversation.status_changed`, … */
  name: string;
  data: Record<string, unknown>;
  audience: Audience;
}

/** Does this subscription hear it? `inboxMembers`: user ids of the audience's inbox (needed only for agents). */
export function hears(sub: CableSubscription, audience: Audience, inboxMembers: ReadonlySet<number> = new Set()): boolean {
  if (sub.kind === 'user') {
    if (sub.user_id === null || sub.user_id === audience.exceptUserId) return false;
    if (audience.allUsers || audience.userIds?.includes(sub.user_id)) return true;
    if (audience.inboxId === undefined) return false;
    return sub.role === 'administrator' || inboxMembers.has(sub.user_id);
  }
  if (sub.contact_id === null || sub.contact_id === audience.exceptContactId) return false;
  if (sub.pubsub_token !== null && audience.contactTokens?.includes(sub.pubsub_token)) return true;
  return audience.verifiedContactId !== undefined && sub.hmac_verified && sub.contact_id === audience.verifiedContactId;
}

/** Agents (not administrators) among these subscriptions: only then are the inbox's members worth reading. */
export const needsInboxMembers = (subs: CableSubscription[], audience: Audience) =>
  audience.inboxId !== undefined && !audience.allUsers && subs.some((s) => s.kind === 'user' && s.role !== 'administrator');

/** The frames of some socket events for the subscriptions that hear them, in event order. */
export function framesFor(events: CableEvent[], subs: CableSubscription[], inboxMembers: ReadonlySet<number>) {
  const out: { sub: CableSubscription; frame: Frame }[] = [];
  for (const e of events) {
    for (const sub of subs)
      if (hears(sub, e.audience, inboxMembers)) out.push({ sub, frame: frames.event(sub.identifier, e.name, e.data) });
  }
  return out;
}
