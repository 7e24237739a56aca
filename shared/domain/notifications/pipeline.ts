import { getMany } from '#shared/db/repositories/common.ts';
import { nextId } from '#shared/db/ids.ts';
import * as keys from '#shared/db/keys.ts';
import { listInboxMemberIds } from '#shared/db/repositories/inboxes.ts';
import { createNotification, getNotificationSettings } from '#shared/db/repositories/notifications.ts';
import { listParticipantIds } from '#shared/db/repositories/participants.ts';
import { listTeamMemberIds } from '#shared/db/repositories/teams.ts';
import { listAccountUsers } from '#shared/db/repositories/identity.ts';
import type { DomainEvent } from '../events/domain-events.ts';
import { conversationPushData, type ConversationContext } from '../events/payloads.ts';
import { log } from '#shared/log.ts';
import { messagePushJson, userPushJson } from '../conversations/view.ts';
import type { MessageRecord } from '#shared/model/messages.ts';
import type { AccountUserRecord, UserRecord } from '#shared/model/identity.ts';
import { defaultSettings, type NotificationRecord, type NotificationType } from '#shared/model/notifications.ts';

// The pipeline stage that creates notifications from domain events, as Chatwoot's NotificationListener
// does: conversation created (inbox members), assigned to someone other than who assigned it, a private
// note mentioning users or teams (`mention://user/<id>/…`, `mention://team/<id>/…`), a new message in a
// conversation assigned to you, and a new message in a conversation you take part in (participants). Each is created only for users whose
// settings in that account ask for the
// type (email or push flag, NotificationBuilder's rule), and at most once per event and user.

const ACTIVITY = 2;

const TITLES: Record<NotificationType, (displayId: number, inboxName: string) => string> = {
  conversation_creation: (id, inbox) => `A conversation (#${id}) has been created in ${inbox}`,
  conversation_assignment: (id) => `A conversation (#${id}) has been assigned to you`,
  assigned_conversation_new_message: (id) => `A new message is created in conversation (#${id})`,
  conversation_mention: (id) => `You have been mentioned in conversation (#${id})`,
  participating_conversation_new_message: (id) => `A new message is created in conversation (#${id})`,
  sla_missed_first_response: (id) => `SLA target first response missed for conversation #${id}`,
  sla_missed_next_response: (id) => `SLA target next response missed for conversation #${id}`,
  sla_missed_resolution: (id) => `SLA target resolution missed for conversation #${id}`,
};

/** User and team ids mentioned in a private note's content. */
export function mentionsOf(content: string | null): { users: number[]; teams: number[] } {
  const users = new Set<number>();
  const teams = new Set<number>();
  for (const m of (content ?? '').matchAll(/mention:\/\/(user|team)\/(\d{1,15})\//g)) {
    (m[1] === 'user' ? users : teams).add(Number(m[2]));
  }
  return { users: [...users], teams: [...teams] };
}

interface Wanted {
  type: NotificationType;
  userIds: number[];
  message?: MessageRecord;
  /** Another secondary actor than a message (an SLA miss's policy). */
  secondary?: { type: 'SlaPolicy'; id: number; data: Record<string, unknown> };
}

/** Users among `ids` who belong to the account and may see the conversation (administrators or inbox members). */
async function withAccess(ctx: ConversationContext, ids: number[]): Promise<number[]> {
  if (!ids.length) return [];
  const accountId = ctx.account.id;
  const [memberships, inboxMembers] = await Promise.all([
    getMany<AccountUserRecord>(ids.map((id) => keys.accountUser(accountId, id))),
    listInboxMemberIds(accountId, ctx.conversation.inbox_id),
  ]);
  return ids.filter((id, i) => memberships[i] && (memberships[i]!.role === 'administrator' || inboxMembers.includes(id)));
}

async function wantedFor(event: DomainEvent, ctx: ConversationContext): Promise<Wanted[]> {
  const c = ctx.conversation;
  switch (event.name) {
    case 'conversation_created':
      if (c.status === 'pending') return [];
      return [{ type: 'conversation_creation', userIds: await listInboxMemberIds(c.account_id, c.inbox_id) }];
    case 'conversation_updated': {
      if (!('assignee_id' in event.changes) || c.assignee_id === null || c.status === 'pending') return [];
      // Taking a conversation yourself tells you nothing new.
      if (event.performedBy?.type === 'user' && event.performedBy.id === c.assignee_id) return [];
      return [{ type: 'conversation_assignment', userIds: [c.assignee_id] }];
    }
    case 'message_created': {
      const m = event.message!;
      if (m.message_type === ACTIVITY) return [];
      const out: Wanted[] = [];
      const sender = m.sender_type === 'User' ? m.sender_id : null;
      let mentioned: number[] = [];
      if (m.private) {
        const { users, teams } = mentionsOf(m.content);
        const teamMembers = (await Promise.all(teams.map((t) => listTeamMemberIds(c.account_id, t)))).flat();
        mentioned = (await withAccess(ctx, [...new Set([...users, ...teamMembers])])).filter((id) => id !== sender);
        if (mentioned.length) out.push({ type: 'conversation_mention', userIds: mentioned, message: m });
      }
      const assignee = c.assignee_id;
      if (assignee !== null && assignee !== sender && !mentioned.includes(assignee)) {
        out.push({ type: 'assigned_conversation_new_message', userIds: [assignee], message: m });
      }
      // Everyone else taking part hears of it once, unless this message already told them.
      const participants = (await listParticipantIds(c.account_id, c.id)).filter(
        (id) => id !== sender && id !== assignee && !mentioned.includes(id),
      );
      if (participants.length) out.push({ type: 'participating_conversation_new_message', userIds: participants, message: m });
      return out;
    }
    default:
      return [];
  }
}

/** Creates the notifications an event calls for. `ctx`: the event's conversation, when it has one. */
export async function notify(event: DomainEvent, ctx: ConversationContext | undefined): Promise<void> {
  if (!ctx) return;
  await create(event.id, ctx, await wantedFor(event, ctx));
}

/**
 * An SLA miss (Chatwoot's SlaEvent callback): its type's notification to the conversation's participants, the
 * account's administrators and its assignee, once per miss (`claim`: the miss's own id).
 */
export async function notifySlaMiss(
  claim: string,
  ctx: ConversationContext,
  type: 'sla_missed_first_response' | 'sla_missed_next_response' | 'sla_missed_resolution',
  policy: { id: number; data: Record<string, unknown> },
): Promise<void> {
  const c = ctx.conversation;
  const [participants, members] = await Promise.all([listParticipantIds(c.account_id, c.id), listAccountUsers(c.account_id)]);
  const admins = members.filter((m) => m.role === 'administrator').map((m) => m.user_id);
  const userIds = [...new Set([...participants, ...admins, ...(c.assignee_id !== null ? [c.assignee_id] : [])])];
  await create(claim, ctx, [{ type, userIds, secondary: { type: 'SlaPolicy', ...policy } }]);
}

async function create(claim: string, ctx: ConversationContext, all: Wanted[]): Promise<void> {
  const wanted = all.filter((w) => w.userIds.length);
  if (!wanted.length) return;
  const accountId = ctx.account.id;
  const ids = [...new Set(wanted.flatMap((w) => w.userIds))];
  const [settings, people] = await Promise.all([
    getNotificationSettings(accountId, ids),
    getMany<UserRecord | AccountUserRecord>([...ids.map((id) => keys.user(id)), ...ids.map((id) => keys.accountUser(accountId, id))]),
  ]);
  const primary = conversationPushData(ctx);
  const inboxName = ctx.refs.inboxes.get(ctx.conversation.inbox_id)?.name ?? '';
  for (const w of wanted) {
    for (const userId of w.userIds) {
      const i = ids.indexOf(userId);
      const user = people[i] as UserRecord | undefined;
      const membership = people[ids.length + i] as AccountUserRecord | undefined;
      if (!user || !membership) continue;
      const s = settings[i] ?? defaultSettings(accountId, userId);
      if (!s.selected_email_flags.includes(`email_${w.type}`) && !s.selected_push_flags.includes(`push_${w.type}`)) continue;
      const t = Math.floor(Date.now() / 1000);
      const n: NotificationRecord = {
        id: await nextId('notification'),
        account_id: accountId,
        user_id: userId,
        notification_type: w.type,
        primary_actor_type: 'Conversation',
        primary_actor_id: ctx.conversation.id,
        primary_actor: primary,
        secondary_actor: w.message ? messagePushJson(w.message, ctx.conversation, ctx.refs) : (w.secondary?.data ?? null),
        secondary_actor_type: w.message ? 'Message' : (w.secondary?.type ?? null),
        secondary_actor_id: w.message?.id ?? w.secondary?.id ?? null,
        user: userPushJson({ user, membership }),
        push_message_title: TITLES[w.type](ctx.conversation.id, inboxName),
        read_at: null,
        snoozed_until: null,
        created_at: t,
        last_activity_at: t,
      };
      // One event may call for two types for one user only when both are wanted; the claim is per type.
      if (await createNotification(n, `${claim}:${w.type}`)) {
        log.info('notification created', { eventId: claim, type: w.type, userId, notificationId: n.id });
      }
    }
  }
}
