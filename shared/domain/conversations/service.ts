import { randomUUID } from 'node:crypto';
import {
  conversationsByInboxStatus,
  deleteConversation,
  getConversation,
  listContactConversationLinks,
  nextDisplayId,
  insertConversation,
} from '#shared/db/repositories/conversations.ts';
import { listConversationCounters } from '#shared/db/repositories/counts.ts';
import { ConflictError } from '#shared/db/transact.ts';
import { getAccountUser, getAgentBot, getUser } from '#shared/db/repositories/identity.ts';
import { getContact, findContactInbox } from '#shared/db/repositories/contacts.ts';
import { listInboxSummaries } from '#shared/db/repositories/inboxes.ts';
import { getTeam, listUserTeamIds } from '#shared/db/repositories/teams.ts';
import type { Actor } from '#shared/model/actor.ts';
import { invalidField, notFound, unprocessable } from '#shared/errors.ts';
import type { AccountRecord } from '#shared/model/identity.ts';
import { now } from '#shared/model/time.ts';
import { setContactBlocked, touchLastActivity } from '../contacts/service.ts';
import { ensureContactInboxOf } from '../contacts/contact-inboxes.ts';
import type { ContactInboxRecord, ContactRecord } from '#shared/model/contacts.ts';
import { inboxScope, visibleInbox } from '../inboxes/access.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import { activityMessage, buildMessage, messageEffects, type MessageOptions } from '../messages/build.ts';
import { activityIsStale, addMessage, deleteMessageFiles } from '../messages/service.ts';
import type { MessageRecord } from '#shared/model/messages.ts';
import type { NewMessage } from '../messages/schemas.ts';
import { isAgent, visibleConversation } from './access.ts';
import { actorName } from './actor-name.ts';
import { mutate, nowFloat, quietly, touch, withMessage } from './mutation.ts';
import { applySlaPolicy } from '../sla/apply.ts';
import {
  performerOf,
  type ConversationActor,
  type ConversationRecord,
  type ConversationStatus,
  type Priority,
} from '#shared/model/conversations.ts';
import type { NewConversation } from './create-schema.ts';
import type { Assignment, ConversationUpdate, ToggleStatus } from './schemas.ts';
import { agentJson, botSlimJson, conversationJson, loadRefs, teamRowJson } from './view.ts';

// Conversation use cases (docs/chatwoot.md#conversations). Status, assignment, team, label and priority changes write
// an activity message in the same transaction, worded as Chatwoot words them.

/**
 * Contract rule 3 (docs/contract.md#rules): website, phone (SMS, WhatsApp), API and email inboxes take conversations
 * from this API.
 */
const CONVERSATION_CHANNELS = [
  'Channel::WebWidget',
  'Channel::Api',
  'Channel::Email',
  'Channel::Sms',
  'Channel::Whatsapp',
  'Channel::TwilioSms',
];

const renderOne = async (accountId: number, actor: Actor, c: ConversationRecord) =>
  conversationJson(c, await loadRefs(accountId, actor, [c]));

export const showConversation = async (account: AccountRecord, actor: Actor, displayId: number) =>
  renderOne(account.id, actor, await visibleConversation(account.id, actor, displayId));

// ── create ─────────────────────────────────────────────────────────────────────────────────────────

export interface ConversationTarget {
  inbox: InboxRecord;
  contact: ContactRecord;
  contactInbox: ContactInboxRecord;
}

/**
 * Which contact inbox a create request means (docs/chatwoot.md#creating-a-conversation): `inbox_id` + `contact_id`
 * (the source id given or generated), or the `source_id` of an existing contact inbox of this account.
 */
async function resolveTarget(account: AccountRecord, actor: Actor, input: NewConversation): Promise<ConversationTarget> {
  if (input.inbox_id !== undefined && input.contact_id !== undefined) {
    const inbox = await visibleInbox(account.id, actor, input.inbox_id);
    if (!CONVERSATION_CHANNELS.includes(inbox.channel_type)) {
      throw invalidField('inbox_id', 'must be a website, phone, API or email inbox');
    }
    const contact = await getContact(account.id, input.contact_id);
    if (!contact) throw notFound('Contact');
    const contactInbox = await ensureContactInboxOf(contact, inbox, input.source_id ?? undefined, { hmacVerified: input.hmac_verified });
    return { inbox, contact, contactInbox };
  }
  if (input.source_id == null) {
    throw unprocessable([{ field: 'source_id', message: 'is required unless inbox_id and contact_id are given', code: 'required' }]);
  }
  // Chatwoot looks the source id up across all inboxes; here only among this account's inboxes the caller sees.
  const scope = await inboxScope(account.id, actor);
  const candidates =
    input.inbox_id !== undefined
      ? [input.inbox_id]
      : (await listInboxSummaries(account.id)).map((i) => i.id).filter((id) => scope === 'all' || scope.has(id));
  const found = (await Promise.all(candidates.map((id) => findContactInbox(id, input.source_id!)))).find(
    (ci) => ci && ci.account_id === account.id,
  );
  if (!found) throw notFound('Contact inbox');
  const [inbox, contact] = await Promise.all([visibleInbox(account.id, actor, found.inbox_id), getContact(account.id, found.contact_id)]);
  if (!contact) throw notFound('Contact');
  if (!CONVERSATION_CHANNELS.includes(inbox.channel_type)) throw invalidField('inbox_id', 'must be a website, phone, API or email inbox');
  return { inbox, contact, contactInbox: found };
}

/** Chatwoot drops a `referer` that is not a URL. */
function cleanAdditional(attrs: Record<string, unknown> | undefined) {
  const out = { ...(attrs ?? {}) };
  if ('referer' in out) {
    try {
      new URL(String(out.referer));
    } catch {
      delete out.referer;
    }
  }
  return out;
}

export interface ConversationInput {
  additional_attributes?: Record<string, unknown>;
  custom_attributes?: Record<string, unknown>;
  status?: ConversationStatus;
  assignee_id?: number | null;
  team_id?: number | null;
  snoozed_until?: number | null;
  message?: NewMessage;
  /** How the initial message is made (a channel's incoming message: its id, location attachments, its claim). */
  messageOptions?: MessageOptions;
}

/**
 * A new conversation's record before its first message (what `startConversation` writes, and the bench's scale
 * loader builds by the thousand): `made` names its display id, its checked assignee and team, and its creation
 * second (now when absent).
 */
export function newConversationRecord(
  account: AccountRecord,
  actor: ConversationActor,
  target: ConversationTarget,
  input: ConversationInput,
  made: { id: number; assignee_id: number | null; team_id: number | null; at?: number },
): ConversationRecord {
  const { inbox, contact, contactInbox } = target;
  // Blocked contacts start resolved; an inbox with an active bot starts pending
  // (docs/chatwoot.md#creating-a-conversation).
  const status: ConversationStatus = contact.blocked ? 'resolved' : inbox.agent_bot_id ? 'pending' : (input.status ?? 'open');
  const t = made.at ?? now();
  return {
    id: made.id,
    account_id: account.id,
    inbox_id: inbox.id,
    contact_id: contact.id,
    source_id: contactInbox.source_id,
    hmac_verified: contactInbox.hmac_verified,
    uuid: randomUUID(),
    status,
    assignee_id: made.assignee_id,
    assignee_agent_bot_id: null,
    team_id: made.team_id,
    priority: null,
    snoozed_until: status === 'snoozed' ? (input.snoozed_until ?? null) : null,
    labels: [],
    custom_attributes: input.custom_attributes ?? {},
    additional_attributes: cleanAdditional(input.additional_attributes),
    agent_last_seen_at: null,
    assignee_last_seen_at: null,
    contact_last_seen_at: null,
    first_reply_created_at: null,
    waiting_since: t,
    last_incoming_at: null,
    unread_count: 0,
    last_activity_at: t,
    last_message: null,
    last_non_activity_message: null,
    created_at: t,
    updated_at: made.at ?? nowFloat(),
    version: 1,
    updated_by: performerOf(actor),
  };
}

/**
 * Starts a conversation on a contact inbox (or, with `lock_to_single_conversation`, returns its last
 * one), with the initial message in the same transaction. The public interface calls this with the
 * contact as actor.
 */
export async function startConversation(
  account: AccountRecord,
  actor: ConversationActor,
  target: ConversationTarget,
  input: ConversationInput,
): Promise<{ conversation: ConversationRecord; created: boolean; message?: MessageRecord }> {
  const { inbox, contact, contactInbox } = target;
  if (inbox.lock_to_single_conversation) {
    const links = (await listContactConversationLinks(account.id, contact.id)).filter(
      (l) => l.inbox_id === inbox.id && l.source_id === contactInbox.source_id,
    );
    const last = links.length ? await getConversation(account.id, Math.max(...links.map((l) => l.conversation_id)), true) : undefined;
    if (last) {
      if (!input.message) return { conversation: last, created: false };
      const { conversation, message } = await addMessage(account, actor, last, input.message, input.messageOptions);
      return { conversation, created: false, message };
    }
  }
  const [assignee, team] = await Promise.all([
    input.assignee_id ? getAccountUser(account.id, input.assignee_id) : undefined,
    input.team_id ? getTeam(account.id, input.team_id) : undefined,
  ]);
  if (input.assignee_id && !assignee) throw invalidField('assignee_id', 'is not a member of this account');
  if (input.team_id && !team) throw invalidField('team_id', 'is not a team of this account');

  let conversation = newConversationRecord(account, actor, target, input, {
    id: await nextDisplayId(account.id),
    assignee_id: assignee ? assignee.user_id : null,
    team_id: team ? team.id : null,
  });
  let message: MessageRecord | undefined;
  if (input.message) {
    message = await buildMessage({ account, inbox, conversation }, actor, input.message, input.messageOptions);
    await input.messageOptions?.beforeWrite?.(conversation, message);
    conversation = withMessage({ ...conversation, ...messageEffects(conversation, message, inbox, contact.blocked) }, message);
  }
  await insertConversation(conversation, { messages: message ? [message] : [] });
  if (message?.message_type === 0 && activityIsStale(contact, message.created_at))
    await touchLastActivity(account.id, contact.id, message.created_at);
  return { conversation, created: true, message };
}

/** `POST /conversations` (contract endpoint 3, docs/contract.md#endpoints). */
export async function createConversation(account: AccountRecord, actor: Actor, input: NewConversation) {
  const target = await resolveTarget(account, actor, input);
  const { conversation } = await startConversation(account, actor, target, input);
  // An incoming first message made the contact active: only then is the contact read again.
  const known = { contacts: conversation.last_message?.message_type === 0 ? [] : [target.contact], inboxes: [target.inbox] };
  return conversationJson(conversation, await loadRefs(account.id, actor, [conversation], [], known));
}

// ── status ─────────────────────────────────────────────────────────────────────────────────────────

const STATUS_ACTIVITY: Record<ConversationStatus, string> = {
  resolved: 'Conversation was marked resolved by %s',
  open: 'Conversation was reopened by %s',
  pending: 'Conversation was marked as pending by %s',
  snoozed: 'Conversation was snoozed by %s',
};

export interface StatusChange {
  success: boolean | null;
  conversation: ConversationRecord;
}

/**
 * Sets (or, without `status`, toggles) a conversation's status (docs/chatwoot.md#status-changes). An agent who leaves
 * it open takes it over; a bot opening a pending conversation hands it off (`success: null`). The public interface
 * calls this with the contact as actor.
 */
export async function changeStatus(
  account: AccountRecord,
  actor: ConversationActor,
  conversation: ConversationRecord,
  input: ToggleStatus,
): Promise<StatusChange> {
  const name = await actorName(account.id, actor);
  const { conversation: after, result } = await mutate(conversation, async (c) => {
    const status: ConversationStatus = input.status ?? (c.status === 'open' ? 'resolved' : 'open');
    const handoff = actor.type === 'agent_bot' && c.status === 'pending' && status === 'open';
    const selfAssign = actor.type === 'user' && isAgent(actor) && status === 'open' && c.assignee_id !== actor.user.id;
    const changes: Partial<ConversationRecord> = {
      status,
      snoozed_until: status === 'snoozed' ? (input.snoozed_until !== undefined ? input.snoozed_until : c.snoozed_until) : null,
      waiting_since: status === 'resolved' ? null : c.waiting_since,
      ...(selfAssign && actor.type === 'user' ? { assignee_id: actor.user.id, assignee_agent_bot_id: null } : {}),
    };
    const unchanged = Object.entries(changes).every(([k, v]) => c[k as keyof ConversationRecord] === v);
    if (unchanged) return { result: handoff ? null : true };
    const messages: MessageRecord[] = [];
    if (status !== c.status && name !== undefined) {
      const text =
        actor.type === 'contact' && status === 'resolved'
          ? `Conversation was resolved by ${name}`
          : STATUS_ACTIVITY[status].replace('%s', name);
      messages.push(await activityMessage(c, text, actor));
    }
    if (selfAssign && name !== undefined) messages.push(await activityMessage(c, `${name} self-assigned this conversation`, actor));
    return { next: touch(c, actor, changes), messages, result: handoff ? null : true };
  });
  return { success: result, conversation: after };
}

/** `POST /conversations/{id}/toggle_status`. */
export async function toggleStatus(account: AccountRecord, actor: Actor, displayId: number, input: ToggleStatus) {
  const c = await visibleConversation(account.id, actor, displayId, true);
  const { success, conversation } = await changeStatus(account, actor, c, input);
  return {
    meta: {},
    payload: {
      success,
      conversation_id: conversation.id,
      current_status: conversation.status,
      snoozed_until: conversation.snoozed_until === null ? null : new Date(conversation.snoozed_until * 1000).toISOString(),
    },
  };
}

// ── priority, custom attributes, labels ───────────────────────────────────────────────────────────

/** Sets or clears the priority of a conversation the caller may act on. */
export async function setPriority(account: AccountRecord, actor: ConversationActor, c: ConversationRecord, priority: Priority | null) {
  const name = await actorName(account.id, actor);
  return mutate(c, async (cur) => {
    if (cur.priority === priority) return { result: undefined };
    const text =
      priority === null
        ? `${name} removed the priority`
        : cur.priority === null
          ? `${name} set the priority to ${priority}`
          : `${name} changed the priority from ${cur.priority} to ${priority}`;
    return { next: touch(cur, actor, { priority }), messages: [await activityMessage(cur, text, actor)], result: undefined };
  });
}

/** `POST /conversations/{id}/toggle_priority`: 200 with an empty body. */
export async function togglePriority(account: AccountRecord, actor: Actor, displayId: number, priority: Priority | null) {
  await setPriority(account, actor, await visibleConversation(account.id, actor, displayId, true), priority);
}

/**
 * `PATCH /conversations/{id}`: only the priority and (Chatwoot's enterprise) the SLA policy are updatable
 * (docs/chatwoot.md#conversation-routes, docs/sla.md).
 */
export async function updateConversation(account: AccountRecord, actor: Actor, displayId: number, input: ConversationUpdate) {
  let after = await visibleConversation(account.id, actor, displayId, true);
  // The policy first: one not of the account is a 422 before anything is written (the priority is valid by its schema).
  if (input.sla_policy_id !== undefined) after = await applySlaPolicy(after, actor, input.sla_policy_id);
  if (input.priority !== undefined) after = (await setPriority(account, actor, after, input.priority)).conversation;
  return renderOne(account.id, actor, after);
}

/**
 * `POST /conversations/{id}/custom_attributes`: replaces the whole hash
 * (docs/chatwoot.md#labels-priority-custom-attributes-mute).
 */
export async function setCustomAttributes(account: AccountRecord, actor: Actor, displayId: number, attrs: Record<string, unknown>) {
  const c = await visibleConversation(account.id, actor, displayId, true);
  const { conversation } = await mutate(c, (cur) => ({
    next: JSON.stringify(cur.custom_attributes) === JSON.stringify(attrs) ? undefined : touch(cur, actor, { custom_attributes: attrs }),
    result: undefined,
  }));
  return { custom_attributes: conversation.custom_attributes };
}

export async function listLabels(account: AccountRecord, actor: Actor, displayId: number) {
  return { payload: (await visibleConversation(account.id, actor, displayId)).labels };
}

/**
 * `POST /conversations/{id}/labels`: replaces the label set
 * (docs/chatwoot.md#labels-priority-custom-attributes-mute).
 */
export async function setLabels(account: AccountRecord, actor: Actor, displayId: number, labels: string[]) {
  const conversation = await applyLabels(account, actor, await visibleConversation(account.id, actor, displayId, true), labels);
  return { payload: conversation.labels };
}

/** Replaces the labels of a conversation the caller may act on, with the activity messages. */
export async function applyLabels(account: AccountRecord, actor: ConversationActor, c: ConversationRecord, labels: string[]) {
  const name = await actorName(account.id, actor);
  const wanted = [...new Set(labels)];
  const { conversation } = await mutate(c, async (cur) => {
    const added = wanted.filter((l) => !cur.labels.includes(l));
    const removed = cur.labels.filter((l) => !wanted.includes(l));
    if (!added.length && !removed.length) return { result: undefined };
    const messages = [
      ...(added.length ? [await activityMessage(cur, `${name} added ${added.join(', ')}`, actor)] : []),
      ...(removed.length ? [await activityMessage(cur, `${name} removed ${removed.join(', ')}`, actor)] : []),
    ];
    return { next: touch(cur, actor, { labels: wanted }), messages, result: undefined };
  });
  return conversation;
}

// ── assignments ────────────────────────────────────────────────────────────────────────────────────

/**
 * `POST /conversations/{id}/assignments` (docs/chatwoot.md#assignment): a user of the account (an unknown one
 * unassigns), an agent bot (`assignee_type: AgentBot`; an unknown one changes nothing), or a team (an
 * unknown one clears it; an assignee outside the new team is unassigned).
 */
export async function assign(account: AccountRecord, actor: Actor, displayId: number, input: Assignment) {
  return assignConversation(account, actor, await visibleConversation(account.id, actor, displayId, true), input);
}

/** The assignment itself, on a conversation the caller may act on. */
export async function assignConversation(account: AccountRecord, actor: ConversationActor, c: ConversationRecord, input: Assignment) {
  const name = await actorName(account.id, actor);
  if (input.assignee_id !== undefined && input.assignee_type === 'AgentBot') {
    const bot = input.assignee_id ? await getAgentBot(input.assignee_id) : undefined;
    if (!bot || (bot.account_id !== null && bot.account_id !== account.id)) return null;
    await mutate(c, async (cur) =>
      cur.assignee_agent_bot_id === bot.id && cur.assignee_id === null
        ? { result: undefined }
        : {
            next: touch(cur, actor, { assignee_agent_bot_id: bot.id, assignee_id: null }),
            messages: [await activityMessage(cur, `Assigned to ${bot.name} by ${name}`, actor)],
            result: undefined,
          },
    );
    return botSlimJson(bot);
  }
  if (input.assignee_id !== undefined) {
    const [membership, user] = input.assignee_id
      ? await Promise.all([getAccountUser(account.id, input.assignee_id), getUser(input.assignee_id)])
      : [undefined, undefined];
    const assignee = membership && user ? { user, membership } : undefined;
    const userId = assignee ? assignee.user.id : null;
    await mutate(c, async (cur) => {
      if (cur.assignee_id === userId && (userId === null || cur.assignee_agent_bot_id === null)) return { result: undefined };
      const text =
        userId === null
          ? `Conversation unassigned by ${name}`
          : actor.type === 'user' && actor.user.id === userId
            ? `${name} self-assigned this conversation`
            : `Assigned to ${assignee!.user.name} by ${name}`;
      return {
        next: touch(cur, actor, { assignee_id: userId, ...(userId !== null ? { assignee_agent_bot_id: null } : {}) }),
        messages: [await activityMessage(cur, text, actor)],
        result: undefined,
      };
    });
    return assignee ? agentJson(assignee, account.id) : null;
  }
  if (input.team_id !== undefined) {
    const team = input.team_id ? await getTeam(account.id, input.team_id) : undefined;
    const teamId = team ? team.id : null;
    await mutate(c, async (cur) => {
      if (cur.team_id === teamId) return { result: undefined };
      const keepAssignee =
        cur.assignee_id === null || teamId === null || (await listUserTeamIds(account.id, cur.assignee_id)).includes(teamId);
      const previous = cur.team_id !== null ? await getTeam(account.id, cur.team_id) : undefined;
      const text = team ? `Assigned to ${team.name} by ${name}` : `Unassigned from ${previous?.name ?? 'team'} by ${name}`;
      return {
        next: touch(cur, actor, { team_id: teamId, ...(keepAssignee ? {} : { assignee_id: null }) }),
        messages: [await activityMessage(cur, text, actor)],
        result: undefined,
      };
    });
    return team ? teamRowJson(team) : null;
  }
  return null;
}

// ── seen times ─────────────────────────────────────────────────────────────────────────────────────

/** `POST /conversations/{id}/update_last_seen`: no event in Chatwoot, so no conversation change here either. */
export async function updateLastSeen(account: AccountRecord, actor: Actor, displayId: number) {
  const c = await visibleConversation(account.id, actor, displayId, true);
  const t = now();
  const { conversation } = await mutate(c, (cur) => ({
    next: quietly(cur, {
      agent_last_seen_at: t,
      unread_count: 0,
      ...(actor.type === 'user' && cur.assignee_id === actor.user.id ? { assignee_last_seen_at: t } : {}),
    }),
    result: undefined,
  }));
  return renderOne(account.id, actor, conversation);
}

/**
 * The public interface's `update_last_seen`: the contact has seen the conversation. Chatwoot announces
 * `conversation.read` for it (a change of `contact_last_seen_at`).
 */
export async function markSeenByContact(conversation: ConversationRecord): Promise<ConversationRecord> {
  const t = now();
  const { conversation: after } = await mutate(conversation, (cur) => ({
    next: quietly(cur, { contact_last_seen_at: t }),
    result: undefined,
  }));
  return after;
}

// ── delete ─────────────────────────────────────────────────────────────────────────────────────────

/**
 * `DELETE /conversations/{id}` (administrators): the conversation, its messages and its share of the counts,
 * then its messages' stored files (signed links handed out stop serving them).
 */
export async function destroyConversation(account: AccountRecord, actor: Actor, displayId: number): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const c = await visibleConversation(account.id, actor, displayId, true);
    try {
      return await deleteMessageFiles(account.id, await deleteConversation(c));
    } catch (err) {
      if (!(err instanceof ConflictError) || attempt >= 5) throw err;
    }
  }
}

// ── an agent leaves the account ────────────────────────────────────────────────────────────────────

/**
 * Unassigns every conversation of the account assigned to this user, as Chatwoot's agent removal does
 * (a bulk column update: no activity message). The counters (AP66) name the inbox and status partitions
 * that hold such conversations, so only those are read (AP63), not the whole account.
 */
export async function unassignUserConversations(accountId: number, userId: number): Promise<number> {
  const places = (await listConversationCounters(accountId)).filter((c) => c.assignee_id === userId && c.count > 0);
  const seen = new Set<string>();
  let changed = 0;
  for (const { inbox_id, status } of places) {
    const place = `${inbox_id}|${status}`;
    if (seen.has(place)) continue;
    seen.add(place);
    for await (const row of conversationsByInboxStatus(accountId, inbox_id, status, 100)) {
      if (row.assignee_id !== userId) continue;
      // The index row names the conversation; the change needs the whole record.
      const c = await getConversation(accountId, row.id, true);
      if (!c) continue;
      const { result } = await mutate(c, (cur) =>
        cur.assignee_id === userId ? { next: quietly(cur, { assignee_id: null }), result: 1 } : { result: 0 },
      );
      changed += result;
    }
  }
  return changed;
}

// ── mute, unread ───────────────────────────────────────────────────────────────────────────────────

async function addActivity(actor: ConversationActor, c: ConversationRecord, text: string) {
  await mutate(c, async (cur) => ({ next: quietly(cur, {}), messages: [await activityMessage(cur, text, actor)], result: undefined }));
}

/**
 * `POST /conversations/{id}/mute` (docs/chatwoot.md#labels-priority-custom-attributes-mute): resolves the
 * conversation and blocks its contact (so new messages no longer reopen it), with Chatwoot's activity message.
 */
export async function muteConversation(account: AccountRecord, actor: Actor, displayId: number): Promise<void> {
  const c = await visibleConversation(account.id, actor, displayId, true);
  const { conversation } = await changeStatus(account, actor, c, { status: 'resolved' });
  await setContactBlocked(account.id, c.contact_id, true);
  const name = await actorName(account.id, actor);
  if (name !== undefined) await addActivity(actor, conversation, `${name} has muted the conversation`);
}

/** `POST /conversations/{id}/unmute`: unblocks the contact. */
export async function unmuteConversation(account: AccountRecord, actor: Actor, displayId: number): Promise<void> {
  const c = await visibleConversation(account.id, actor, displayId, true);
  await setContactBlocked(account.id, c.contact_id, false);
  const name = await actorName(account.id, actor);
  if (name !== undefined) await addActivity(actor, c, `${name} has unmuted the conversation`);
}

/**
 * `POST /conversations/{id}/unread`: the agent (and assignee) last saw it just before the last incoming
 * message, so that message counts as unread again (never seen when there is none). Chatwoot renders nothing.
 */
export async function markUnread(account: AccountRecord, actor: Actor, displayId: number) {
  const c = await visibleConversation(account.id, actor, displayId, true);
  await mutate(c, (cur) => {
    const seen = cur.last_incoming_at ? cur.last_incoming_at - 1 : null;
    return {
      next: quietly(cur, {
        agent_last_seen_at: seen,
        assignee_last_seen_at: seen,
        unread_count: cur.last_incoming_at ? Math.max(cur.unread_count, 1) : 0,
      }),
      result: undefined,
    };
  });
}
