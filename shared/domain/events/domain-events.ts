import type { ContactRecord } from '#shared/model/contacts.ts';
import type { ConversationRecord } from '#shared/model/conversations.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import type { MessageRecord, Performer } from '#shared/model/messages.ts';
import { conversationOf } from '#shared/db/repositories/conversations.ts';
import type { Change } from '#shared/model/change.ts';
import { AUDIT_ATTRIBUTES } from '#shared/model/audit.ts';
import type { SignalRecord } from '#shared/model/signals.ts';
import { isSealed } from '#shared/crypto/tokens.ts';

const maskSealed = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'string' && isSealed(x) ? 'sealed' : x));
import type { NotificationRecord } from '#shared/model/notifications.ts';

// What a change of the table means (docs/chatwoot.md#event-model): item images in, named domain events out.
// Pure: the dispatcher decides who hears about them.

export type DomainEventName =
  | 'conversation_created'
  | 'conversation_updated'
  | 'conversation_status_changed'
  | 'conversation_opened'
  | 'conversation_resolved'
  | 'conversation_typing_on'
  | 'conversation_typing_off'
  | 'message_created'
  | 'message_updated'
  | 'conversation_read'
  | 'conversation_contact_changed'
  | 'contact_created'
  | 'contact_updated'
  | 'contact_deleted'
  | 'contact_merged'
  | 'webwidget_triggered'
  | 'inbox_created'
  | 'inbox_updated'
  | 'notification_created'
  | 'notification_updated'
  | 'notification_deleted'
  /** A conversation removed (DELETE): only the report stage hears it (its figures leave the reports). */
  | 'conversation_deleted';

/** One attribute's move, as Chatwoot's `changed_attributes` lists it. */
export type ChangedAttributes = Record<string, { previous_value: unknown; current_value: unknown }>[];

export interface DomainEvent {
  /** Stable across retries: the stream record id and the event name. */
  id: string;
  name: DomainEventName;
  accountId: number;
  /** Ordering scope: the item collection the change belongs to. */
  scope: string;
  at: number;
  performedBy: Performer | null;
  /** Raw before/after of every changed attribute (automation's `attribute_changed`). */
  changes: Record<string, [unknown, unknown]>;
  changedAttributes: ChangedAttributes | null;
  conversation?: ConversationRecord;
  message?: MessageRecord;
  contact?: ContactRecord;
  inbox?: InboxRecord;
  signal?: SignalRecord;
  /** The notification (its last image when deleted), for the user's realtime channel. */
  notification?: NotificationRecord;
}

/**
 * Events only sockets hear (Chatwoot's ActionCableListener has them; its webhooks, automation rules, bots
 * and notifications do not): the dispatcher broadcasts them and does nothing else.
 */
export const REALTIME_ONLY = new Set<DomainEventName>([
  'conversation_read',
  'conversation_contact_changed',
  'contact_deleted',
  'contact_merged',
]);

/** Changing one of these announces `conversation_updated` (docs/chatwoot.md#event-model). */
const CONVERSATION_ANNOUNCED = [
  'team_id',
  'assignee_id',
  'assignee_agent_bot_id',
  'status',
  'snoozed_until',
  'custom_attributes',
  'labels',
  'waiting_since',
  'first_reply_created_at',
  'priority',
  'sla_policy_id',
];

/** Columns of Chatwoot's conversation row; denormalized and bookkeeping fields are not part of a change. */
const CONVERSATION_COLUMNS = [
  ...CONVERSATION_ANNOUNCED,
  'additional_attributes',
  'agent_last_seen_at',
  'assignee_last_seen_at',
  'contact_last_seen_at',
  'last_activity_at',
  'updated_at',
];
const CONVERSATION_TIMES = new Set([
  'snoozed_until',
  'waiting_since',
  'first_reply_created_at',
  'agent_last_seen_at',
  'assignee_last_seen_at',
  'contact_last_seen_at',
  'last_activity_at',
  'updated_at',
]);

// `send_claim`: a channel's send in progress (shared/domain/channels/send.ts), no change a client sees.
const MESSAGE_IGNORED = new Set(['updated_at', 'performed_by', 'echo_id', 'send_claim']);
const CONTACT_IGNORED = new Set(['version', 'labels']);
const CONTACT_TIMES = new Set(['last_activity_at', 'updated_at', 'created_at']);

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function diff(oldImage: Record<string, unknown>, newImage: Record<string, unknown>, keys: string[]) {
  const out: Record<string, [unknown, unknown]> = {};
  for (const k of keys) if (!same(oldImage[k], newImage[k])) out[k] = [oldImage[k] ?? null, newImage[k] ?? null];
  return out;
}

const iso = (v: unknown) => (typeof v === 'number' ? new Date(v * 1000).toISOString() : (v ?? null));

/** Chatwoot's list of single-key objects; datetimes as ISO strings, labels under their column names. */
function changedList(
  changes: Record<string, [unknown, unknown]>,
  times: Set<string>,
  rename: Record<string, string[]> = {},
): ChangedAttributes {
  const out: ChangedAttributes = [];
  for (const [key, [before, after]] of Object.entries(changes)) {
    const value = times.has(key)
      ? { previous_value: iso(before), current_value: iso(after) }
      : { previous_value: before, current_value: after };
    for (const name of rename[key] ?? [key]) out.push({ [name]: value });
  }
  return out;
}

const performer = (img: Record<string, unknown> | undefined, field: string) => (img?.[field] as Performer | null | undefined) ?? null;

export function eventsOf(change: Change): DomainEvent[] {
  const { newImage, oldImage } = change;
  const image = (newImage ?? oldImage ?? {}) as Record<string, unknown>;
  const base = {
    accountId: Number(image.account_id),
    scope: change.pk,
    at: change.at,
    changes: {} as Record<string, [unknown, unknown]>,
    changedAttributes: null as ChangedAttributes | null,
  };
  const event = (name: DomainEventName, extra: Partial<DomainEvent>): DomainEvent => ({
    ...base,
    id: `${change.id}:${name}`,
    name,
    performedBy: null,
    ...extra,
  });
  if (change.type === 'notification') {
    const notification = (newImage ?? oldImage) as unknown as NotificationRecord;
    const name =
      change.action === 'INSERT' ? 'notification_created' : change.action === 'REMOVE' ? 'notification_deleted' : 'notification_updated';
    return [event(name, { notification })];
  }
  if (change.action === 'REMOVE' && change.type === 'contact' && oldImage) {
    return [event('contact_deleted', { contact: oldImage as unknown as ContactRecord })];
  }
  if (change.action === 'REMOVE' && change.type === 'conversation' && oldImage) {
    return [event('conversation_deleted', { conversation: conversationOf(oldImage)! })];
  }
  if (change.action === 'REMOVE' || !newImage) return [];

  switch (change.type) {
    case 'conversation': {
      const conversation = conversationOf(newImage)!;
      const performedBy = performer(newImage, 'updated_by');
      if (change.action === 'INSERT') return [event('conversation_created', { conversation, performedBy })];
      const changes = diff(oldImage!, newImage, CONVERSATION_COLUMNS);
      const lang = (img: Record<string, unknown>) =>
        (img.additional_attributes as Record<string, unknown> | undefined)?.conversation_language;
      // Chatwoot's AppliedSla announces its conversation when its status moves (docs/sla.md#the-conversations-json).
      const sla = (img: Record<string, unknown>) => img.applied_sla as { id: number; sla_status: string } | null | undefined;
      const [slaBefore, slaAfter] = [sla(oldImage!), sla(newImage)];
      const slaMoved = !!slaBefore && !!slaAfter && slaBefore.id === slaAfter.id && slaBefore.sla_status !== slaAfter.sla_status;
      const announced = CONVERSATION_ANNOUNCED.some((k) => k in changes) || !same(lang(oldImage!), lang(newImage)) || slaMoved;
      // Realtime only (docs/chatwoot.md#event-model): the contact read the conversation; the conversation moved to
      // another contact (a contact merge).
      const realtime: DomainEvent[] = [];
      if ('contact_last_seen_at' in changes) realtime.push(event('conversation_read', { conversation, performedBy, changes }));
      if (!same(oldImage!.contact_id, newImage.contact_id)) {
        realtime.push(
          event('conversation_contact_changed', {
            conversation,
            performedBy,
            changes: { contact_id: [oldImage!.contact_id, newImage.contact_id] },
          }),
        );
      }
      if (!announced) return realtime;
      // The status move alone has no changed columns: Chatwoot's event then carries none (null).
      const changedAttributes = Object.keys(changes).length
        ? changedList(changes, CONVERSATION_TIMES, { labels: ['label_list', 'cached_label_list'] })
        : null;
      const out = [...realtime, event('conversation_updated', { conversation, performedBy, changes, changedAttributes })];
      if ('status' in changes) {
        const statusChange = changedList({ status: changes.status }, CONVERSATION_TIMES);
        out.push(event('conversation_status_changed', { conversation, performedBy, changes, changedAttributes: statusChange }));
        if (conversation.status === 'open') out.push(event('conversation_opened', { conversation, performedBy, changes }));
        if (conversation.status === 'resolved') out.push(event('conversation_resolved', { conversation, performedBy, changes }));
      }
      return out;
    }
    case 'message': {
      const message = newImage as unknown as MessageRecord;
      const performedBy = performer(newImage, 'performed_by');
      if (change.action === 'INSERT') return [event('message_created', { message, performedBy })];
      const keys = Object.keys({ ...oldImage, ...newImage }).filter((k) => !MESSAGE_IGNORED.has(k));
      const changes = diff(oldImage!, newImage, keys);
      return Object.keys(changes).length ? [event('message_updated', { message, performedBy, changes })] : [];
    }
    case 'contact': {
      const contact = newImage as unknown as ContactRecord;
      if (change.action === 'INSERT') return [event('contact_created', { contact })];
      const keys = Object.keys({ ...oldImage, ...newImage }).filter((k) => !CONTACT_IGNORED.has(k));
      const changes = diff(oldImage!, newImage, keys);
      // A save that moved nothing but its own timestamp is no change (Chatwoot skips those too).
      const meaningful = Object.keys(changes).filter((k) => k !== 'updated_at');
      if (!meaningful.length) return [];
      return [event('contact_updated', { contact, changes, changedAttributes: changedList(changes, CONTACT_TIMES) })];
    }
    case 'inbox': {
      // Who wrote it (shared/db/audit-stamp.ts) is the audit log's, never a receiver's.
      const inbox = Object.fromEntries(Object.entries(newImage).filter(([k]) => !AUDIT_ATTRIBUTES.includes(k))) as unknown as InboxRecord;
      if (change.action === 'INSERT') return [event('inbox_created', { inbox })];
      const changes = diff(
        oldImage!,
        newImage,
        Object.keys({ ...oldImage, ...newImage }).filter((k) => k !== 'version' && !AUDIT_ATTRIBUTES.includes(k)),
      );
      // A re-seal (migration, key rotation) rewrites sealed secrets only: nothing a receiver can see changed.
      const meaningful = Object.keys(changes).filter((k) => k !== 'updated_at' && maskSealed(oldImage![k]) !== maskSealed(newImage[k]));
      return meaningful.length ? [event('inbox_updated', { inbox, changes, changedAttributes: changedList(changes, CONTACT_TIMES) })] : [];
    }
    case 'event_signal': {
      if (change.action !== 'INSERT') return [];
      const signal = newImage as unknown as SignalRecord;
      return [event(signal.name, { signal, performedBy: signal.performed_by })];
    }
    default:
      return [];
  }
}
