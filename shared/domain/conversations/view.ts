import { config } from '#shared/config.ts';
import type { Actor } from '#shared/model/actor.ts';
import { getAgentBots, getMembers } from '#shared/db/repositories/identity.ts';
import { getContacts } from '#shared/db/repositories/contacts.ts';
import { getInboxes } from '#shared/db/repositories/inboxes.ts';
import { getTeams, listUserTeamIds } from '#shared/db/repositories/teams.ts';
import { getSlaPolicies } from '#shared/db/repositories/sla.ts';
import type { SlaPolicyRecord } from '#shared/model/sla.ts';
import { appliedSlaJson, slaEventsJson } from '../sla/view.ts';
import type { AccountUserRecord, AgentBotRecord, UserRecord } from '#shared/model/identity.ts';
import type { ContactRecord } from '#shared/model/contacts.ts';
import { contactJson, contactPushJson } from '../contacts/view.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import type { TeamRecord } from '#shared/model/teams.ts';
import type { AttachmentRecord, MessageRecord } from '#shared/model/messages.ts';
import { getMessages } from '#shared/db/repositories/messages.ts';
import type { Hit } from '#shared/search/index.ts';
import type { ConversationRecord } from '#shared/model/conversations.ts';
import { withRefsCache } from './refs-cache.ts';
import { fileScope, fileUrl } from '#shared/storage/file-urls.ts';

// JSON of conversations and messages (docs/chatwoot.md#conversation-json, docs/chatwoot.md#message-json) and the
// batch lookups they need, so a page of conversations costs one BatchGet per kind of related record instead of
// queries per row.

export interface Member {
  user: UserRecord;
  membership: AccountUserRecord | undefined;
}

export interface Refs {
  accountId: number;
  contacts: Map<number, ContactRecord>;
  inboxes: Map<number, InboxRecord>;
  users: Map<number, Member>;
  bots: Map<number, AgentBotRecord>;
  teams: Map<number, TeamRecord>;
  /** Teams the caller belongs to (`meta.team.is_member`). */
  myTeams: Set<number>;
  /** The policies of the conversations' applied SLAs (`applied_sla`). */
  slaPolicies: Map<number, SlaPolicyRecord>;
}

const distinct = (xs: (number | null | undefined)[]) => [...new Set(xs.filter((x): x is number => typeof x === 'number'))];

const byId = <T extends { id: number }>(xs: (T | undefined)[]) => new Map(xs.filter((x): x is T => !!x).map((x) => [x.id, x]));

/** Everything the JSON of these conversations and messages refers to, fetched in parallel batches. */
export async function loadRefs(
  accountId: number,
  actor: Actor | undefined,
  conversations: ConversationRecord[],
  messages: Pick<MessageRecord, 'sender_type' | 'sender_id'>[] = [],
  /** Records the caller already holds: not read again. */
  known: { contacts?: ContactRecord[]; inboxes?: InboxRecord[] } = {},
): Promise<Refs> {
  const knownContacts = byId(known.contacts ?? []);
  const knownInboxes = byId(known.inboxes ?? []);
  const shown = conversations.flatMap((c) => [c.last_message, c.last_non_activity_message]);
  const all = [...messages, ...shown].filter((m): m is Pick<MessageRecord, 'sender_type' | 'sender_id'> => !!m);
  const senders = (t: string) => all.filter((m) => m.sender_type === t).map((m) => m.sender_id);
  const contactIds = distinct([...conversations.map((c) => c.contact_id), ...senders('Contact')]).filter((id) => !knownContacts.has(id));
  const inboxIds = distinct(conversations.map((c) => c.inbox_id)).filter((id) => !knownInboxes.has(id));
  const userIds = distinct([...conversations.map((c) => c.assignee_id), ...senders('User')]);
  const botIds = distinct([...conversations.map((c) => c.assignee_agent_bot_id), ...senders('AgentBot')]);
  const teamIds = distinct(conversations.map((c) => c.team_id));
  const policyIds = distinct(conversations.map((c) => c.applied_sla?.sla_policy_id));
  // Contacts are read fresh; inboxes, users, bots, teams and SLA policies through the refs cache (refs-cache.ts).
  const [contacts, [inboxes, found, bots, teams, myTeams, policies]] = await Promise.all([
    contactIds.length ? getContacts(accountId, contactIds) : [],
    withRefsCache(() =>
      Promise.all([
        inboxIds.length ? getInboxes(accountId, inboxIds) : [],
        userIds.length ? getMembers(accountId, userIds) : [],
        botIds.length ? getAgentBots(botIds) : [],
        teamIds.length ? getTeams(accountId, teamIds) : [],
        actor?.type === 'user' && teamIds.length ? listUserTeamIds(accountId, actor.user.id) : Promise.resolve([] as number[]),
        policyIds.length ? getSlaPolicies(accountId, policyIds) : [],
      ]),
    ),
  ]);
  const members = new Map<number, Member>();
  for (const { user, membership } of found) if (user) members.set(user.id, { user, membership });
  return {
    accountId,
    contacts: new Map([...knownContacts, ...byId(contacts)]),
    inboxes: new Map([...knownInboxes, ...byId(inboxes)]),
    users: members,
    bots: byId(bots),
    teams: byId(teams),
    myTeams: new Set(myTeams),
    slaPolicies: byId(policies),
  };
}

/**
 * Chatwoot's enterprise `applied_sla` and `sla_events` of a conversation (docs/sla.md#the-conversations-json), from the
 * copy on the conversation item: `applied_sla` null without one (the REST view leaves it out then, as Chatwoot's).
 */
export function conversationSlaJson(c: ConversationRecord, refs: Refs) {
  const a = c.applied_sla;
  return {
    applied_sla: a ? appliedSlaJson(a, refs.slaPolicies.get(a.sla_policy_id)) : null,
    sla_events: a ? slaEventsJson(a) : [],
  };
}

const iso = (t: number | null) => (t === null ? null : new Date(t * 1000).toISOString());

export const availableName = (u: Pick<UserRecord, 'display_name' | 'name'>) => u.display_name || u.name;

/**
 * Agent JSON (docs/chatwoot.md#inbox-members-and-agent-json): the assignee in `meta.assignee` and the assignments
 * response.
 */
/** A user's avatar as clients get it: a signed link of the uploaded file. */
export const userAvatarUrl = (user: Pick<UserRecord, 'id' | 'avatar_url'>) => fileUrl(user.avatar_url, fileScope.userAvatar(user.id));

export function agentJson({ user, membership }: Member, accountId: number) {
  return {
    id: user.id,
    account_id: accountId,
    availability_status: membership?.availability ?? 'offline',
    auto_offline: membership?.auto_offline ?? true,
    confirmed: true,
    email: user.email,
    provider: 'email',
    available_name: availableName(user),
    ...(Object.keys(user.custom_attributes ?? {}).length ? { custom_attributes: user.custom_attributes } : {}),
    name: user.name,
    role: membership?.role ?? 'agent',
    thumbnail: userAvatarUrl(user),
    custom_role_id: membership?.custom_role_id ?? null,
  };
}

export const userPushJson = ({ user, membership }: Member) => ({
  id: user.id,
  name: user.name,
  available_name: availableName(user),
  avatar_url: userAvatarUrl(user),
  type: 'user' as const,
  availability_status: membership?.availability ?? 'offline',
  thumbnail: userAvatarUrl(user),
});

export const botPushJson = (b: AgentBotRecord) => ({ id: b.id, name: b.name, avatar_url: b.thumbnail ?? '', type: 'agent_bot' as const });

/** AgentBotSlim: the bot in `meta.assignee` and the assignments response. */
export const botSlimJson = (b: AgentBotRecord) => ({
  id: b.id,
  name: b.name,
  description: b.description,
  thumbnail: b.thumbnail ?? '',
  outgoing_url: b.outgoing_url,
  bot_type: b.bot_type,
});

/** The raw team row the assignments endpoint answers with. */
export function teamRowJson(t: TeamRecord) {
  const extra = t as TeamRecord & { created_at?: number; updated_at?: number };
  return {
    id: t.id,
    name: t.name,
    description: t.description,
    allow_auto_assign: t.allow_auto_assign,
    account_id: t.account_id,
    created_at: iso(extra.created_at ?? null),
    updated_at: iso(extra.updated_at ?? null),
  };
}

export function senderJson(m: MessageRecord, refs: Refs) {
  if (m.sender_id === null) return undefined;
  if (m.sender_type === 'Contact') {
    const c = refs.contacts.get(m.sender_id);
    return c && contactPushJson(c);
  }
  if (m.sender_type === 'User') {
    const u = refs.users.get(m.sender_id);
    return u && userPushJson(u);
  }
  if (m.sender_type === 'AgentBot') {
    const b = refs.bots.get(m.sender_id);
    return b && botPushJson(b);
  }
  return undefined;
}

/** Chatwoot's push data of a location (the place, `data_url` its link), a shared link (its title and URL) and a contact card. */
const placeJson = (a: AttachmentRecord) => ({
  id: a.id,
  message_id: a.message_id,
  file_type: a.file_type,
  account_id: a.account_id,
  extension: a.extension,
  ...(a.file_type === 'location'
    ? {
        coordinates_lat: a.coordinates_lat ?? null,
        coordinates_long: a.coordinates_long ?? null,
        fallback_title: a.fallback_title ?? null,
        data_url: a.external_url ?? null,
      }
    : a.file_type === 'fallback'
      ? { fallback_title: a.fallback_title ?? null, data_url: a.external_url ?? null }
      : { fallback_title: a.fallback_title ?? null, meta: a.meta ?? {} }),
});

export const attachmentJson = (a: AttachmentRecord) =>
  a.file_type === 'location' || a.file_type === 'contact' || a.file_type === 'fallback' ? placeJson(a) : fileJson(a);

const fileJson = (a: AttachmentRecord) => ({
  id: a.id,
  message_id: a.message_id,
  file_type: a.file_type,
  account_id: a.account_id,
  extension: a.extension,
  data_url: fileUrl(a.data_url, fileScope.attachment(a.account_id), a.filename),
  thumb_url: fileUrl(a.thumb_url, fileScope.attachment(a.account_id), a.filename),
  file_size: a.file_size,
  width: a.width,
  height: a.height,
});

function messageFields(m: MessageRecord, refs: Refs) {
  const sender = senderJson(m, refs);
  return {
    id: m.id,
    content: m.content,
    account_id: m.account_id,
    inbox_id: m.inbox_id,
    conversation_id: m.conversation_id,
    message_type: m.message_type,
    created_at: m.created_at,
    private: m.private,
    status: m.status,
    source_id: m.source_id,
    content_type: m.content_type,
    content_attributes: m.content_attributes,
    sender_type: m.sender_type,
    sender_id: m.sender_id,
    external_source_ids: m.external_source_ids,
    additional_attributes: m.additional_attributes,
    processed_message_content: m.processed_message_content,
    sentiment: m.sentiment,
    ...(sender ? { sender } : {}),
    ...(m.attachments.length ? { attachments: m.attachments.map(attachmentJson) } : {}),
  };
}

/** Message JSON of the messages endpoints (docs/chatwoot.md#message-json); `echo_id` only in the create response. */
export function messageJson(m: MessageRecord, refs: Refs, echoId?: string) {
  return { ...messageFields(m, refs), updated_at: m.updated_at, ...(echoId ? { echo_id: echoId } : {}) };
}

/** MessagePush (docs/chatwoot.md#conversation-json): a message inside conversation JSON. */
export function messagePushJson(m: MessageRecord, c: ConversationRecord, refs: Refs) {
  return {
    ...messageFields(m, refs),
    updated_at: iso(m.updated_at),
    conversation: {
      assignee_id: c.assignee_id,
      unread_count: Math.min(c.unread_count, 10),
      last_activity_at: c.last_activity_at,
      contact_inbox: { source_id: c.source_id },
    },
  };
}

function assigneeMeta(c: ConversationRecord, refs: Refs) {
  if (c.assignee_id !== null) {
    const u = refs.users.get(c.assignee_id);
    if (u) return { assignee: agentJson(u, refs.accountId), assignee_type: 'User' as const };
  }
  if (c.assignee_agent_bot_id !== null) {
    const b = refs.bots.get(c.assignee_agent_bot_id);
    if (b) return { assignee: botSlimJson(b), assignee_type: 'AgentBot' as const };
  }
  return {};
}

/** Hours after the contact's last message within which a free-form message may be sent (docs/channels.md#the-messaging-window). */
const REPLY_WINDOW_HOURS: Partial<Record<InboxRecord['channel_type'], number>> = { 'Channel::Whatsapp': 24 };

/**
 * Meta's windows (Chatwoot's MessageWindowService): a page's and an Instagram account's 24 hours, 7 days when the
 * installation's HUMAN_AGENT setting tags their sends (ENABLE_MESSENGER_CHANNEL_HUMAN_AGENT,
 * ENABLE_INSTAGRAM_CHANNEL_HUMAN_AGENT).
 */
function windowHours(inbox: InboxRecord): number | undefined {
  if (inbox.channel_type === 'Channel::FacebookPage') return config().messengerHumanAgent ? 7 * 24 : 24;
  if (inbox.channel_type === 'Channel::Instagram') return config().instagramHumanAgent ? 7 * 24 : 24;
  return REPLY_WINDOW_HOURS[inbox.channel_type];
}

/** Chatwoot's `can_reply`: true without a messaging window; otherwise whether the last incoming message is recent enough. */
export function canReply(c: Pick<ConversationRecord, 'last_incoming_at'>, inbox: InboxRecord | undefined, at: number) {
  const hours = inbox ? windowHours(inbox) : undefined;
  if (hours === undefined) return true;
  return c.last_incoming_at !== null && at - c.last_incoming_at < hours * 3600;
}

/** Chatwoot's jbuilder leaves out an `applied_sla` block that rendered nothing. */
const restSla = ({ applied_sla, sla_events }: ReturnType<typeof conversationSlaJson>) =>
  applied_sla ? { applied_sla, sla_events } : { sla_events };

/** Conversation JSON of the application API (docs/chatwoot.md#conversation-json); `id` is the display id. */
export function conversationJson(c: ConversationRecord, refs: Refs) {
  const contact = refs.contacts.get(c.contact_id);
  const inbox = refs.inboxes.get(c.inbox_id);
  const team = c.team_id !== null ? refs.teams.get(c.team_id) : undefined;
  return {
    meta: {
      sender: contact ? contactJson(contact) : { id: c.contact_id },
      channel: inbox?.channel_type ?? null,
      ...assigneeMeta(c, refs),
      ...(team
        ? {
            team: {
              id: team.id,
              name: team.name,
              description: team.description,
              allow_auto_assign: team.allow_auto_assign,
              account_id: team.account_id,
              is_member: refs.myTeams.has(team.id),
            },
          }
        : {}),
      hmac_verified: c.hmac_verified,
    },
    id: c.id,
    messages: c.last_message ? [messagePushJson(c.last_message, c, refs)] : [],
    account_id: c.account_id,
    uuid: c.uuid,
    additional_attributes: c.additional_attributes,
    agent_last_seen_at: c.agent_last_seen_at ?? 0,
    assignee_last_seen_at: c.assignee_last_seen_at ?? 0,
    can_reply: canReply(c, inbox, Math.floor(Date.now() / 1000)),
    contact_last_seen_at: c.contact_last_seen_at ?? 0,
    custom_attributes: c.custom_attributes,
    inbox_id: c.inbox_id,
    labels: c.labels,
    muted: contact?.blocked ?? false,
    snoozed_until: iso(c.snoozed_until),
    status: c.status,
    created_at: c.created_at,
    updated_at: c.updated_at,
    timestamp: c.last_activity_at,
    first_reply_created_at: c.first_reply_created_at ?? 0,
    unread_count: Math.min(c.unread_count, 10),
    last_non_activity_message: c.last_non_activity_message ? messagePushJson(c.last_non_activity_message, c, refs) : null,
    last_activity_at: c.last_activity_at,
    priority: c.priority,
    waiting_since: c.waiting_since ?? 0,
    sla_policy_id: c.sla_policy_id ?? null,
    ...restSla(conversationSlaJson(c, refs)),
    // Not part of Chatwoot's JSON, but what clients otherwise ask the contacts API for.
    contact_id: c.contact_id,
    assignee_id: c.assignee_id,
    team_id: c.team_id,
  };
}

export async function conversationsJson(
  accountId: number,
  actor: Actor | undefined,
  cs: ConversationRecord[],
  /** Contacts the caller already read (a list page reads them with its conversations). */
  contacts: ContactRecord[] = [],
) {
  const refs = await loadRefs(accountId, actor, cs, [], { contacts });
  return cs.map((c) => conversationJson(c, refs));
}

/** The slim search result (`_conversation.json.jbuilder` of the search view) with the matching messages. */
export async function searchResultsJson(accountId: number, cs: ConversationRecord[], hits: Map<number, Hit[]>) {
  // The matching messages of the page's conversations, oldest first: a conversation item carries its last
  // message and last chat message (kept in step with every change of either), so a match that is one of
  // those is not read again; the others come in one BatchGet (AP70).
  const carried: MessageRecord[] = [];
  const wanted: { conversation_id: number; id: number }[] = [];
  for (const c of cs) {
    for (const h of hits.get(c.id) ?? []) {
      const copy = [c.last_message, c.last_non_activity_message].find((m) => m?.id === h.m);
      if (copy) carried.push(copy);
      else wanted.push({ conversation_id: h.c, id: h.m });
    }
  }
  const read = wanted.length ? await getMessages(accountId, wanted) : [];
  const ms = [...carried, ...read.filter((m): m is MessageRecord => !!m)].sort((a, b) => a.id - b.id);
  const matches = new Map<number, MessageRecord[]>();
  for (const m of ms) matches.set(m.conversation_id, [...(matches.get(m.conversation_id) ?? []), m]);
  const refs = await loadRefs(accountId, undefined, cs, ms);
  const senderName = (m: MessageRecord) => {
    if (m.sender_id === null) return undefined;
    if (m.sender_type === 'Contact') return refs.contacts.get(m.sender_id)?.name;
    if (m.sender_type === 'User') return refs.users.get(m.sender_id)?.user.name;
    return refs.bots.get(m.sender_id)?.name;
  };
  return cs.map((c) => {
    const contact = refs.contacts.get(c.contact_id);
    const inbox = refs.inboxes.get(c.inbox_id);
    return {
      id: c.id,
      uuid: c.uuid,
      created_at: c.created_at,
      contact: { id: c.contact_id, name: contact?.name ?? '' },
      inbox: { id: c.inbox_id, name: inbox?.name ?? '', channel_type: inbox?.channel_type ?? null },
      messages: (matches.get(c.id) ?? []).map((m) => {
        const name = senderName(m);
        return {
          content: m.content,
          id: m.id,
          ...(name !== undefined ? { sender_name: name } : {}),
          message_type: m.message_type,
          created_at: m.created_at,
        };
      }),
      account_id: c.account_id,
    };
  });
}
