import { expect } from 'vitest';
import { client, runtime, seedAccount, unique, type Client, type SeededAccount } from '../../support/runtime.ts';

// Setups the conversation and message tests share: an account with inboxes, contacts, teams and bots,
// all made through the API as a Chatwoot client would.

export const ok = <T = any>(res: { status: number; text: string; body: T }, what: string): T => {
  if (res.status !== 200) throw new Error(`${what}: ${res.status} ${res.text}`);
  return res.body;
};

export async function newInbox(s: SeededAccount, channel: Record<string, unknown> = { type: 'api' }, extra: Record<string, unknown> = {}) {
  return ok(await s.admin.api.post(`${s.base}/inboxes`, { name: unique('inbox-'), channel, ...extra }), 'create inbox') as {
    id: number;
    name: string;
    channel_type: string;
  };
}

export async function addInboxMembers(s: SeededAccount, inboxId: number, userIds: number[]) {
  ok(await s.admin.api.post(`${s.base}/inbox_members`, { inbox_id: inboxId, user_ids: userIds }), 'inbox members');
}

export async function newContact(s: SeededAccount, fields: Record<string, unknown> = {}) {
  const body = { name: unique('Contact '), email: `${unique('c')}@example.com`, ...fields };
  return ok(await s.admin.api.post(`${s.base}/contacts`, body), 'create contact').payload.contact as {
    id: number;
    name: string;
    email: string;
  };
}

export async function newTeam(s: SeededAccount, userIds: number[] = [], fields: Record<string, unknown> = {}) {
  const team = ok(await s.admin.api.post(`${s.base}/teams`, { name: unique('team-'), ...fields }), 'create team') as {
    id: number;
    name: string;
  };
  if (userIds.length) ok(await s.admin.api.post(`${s.base}/teams/${team.id}/team_members`, { user_ids: userIds }), 'team members');
  return team;
}

/** An agent bot of the account (platform API), with its own API client. */
export async function newBot(s: SeededAccount) {
  const rt = await runtime();
  const bot = ok(await s.platform.post('/platform/api/v1/agent_bots', { name: unique('bot-'), account_id: s.accountId }), 'create bot') as {
    id: number;
    name: string;
    access_token: string;
  };
  return { ...bot, api: client(rt.baseUrl, bot.access_token) };
}

export async function newConversation(s: SeededAccount, body: Record<string, unknown>, api: Client = s.admin.api) {
  return ok(await api.post(`${s.base}/conversations`, body), 'create conversation') as Record<string, any>;
}

export interface World {
  s: SeededAccount;
  inbox: { id: number; name: string; channel_type: string };
  contact: { id: number; name: string; email: string };
}

/** An account with one API inbox the agent is a member of, and one contact. */
export async function world(): Promise<World> {
  await runtime();
  const s = await seedAccount();
  const [inbox, contact] = await Promise.all([newInbox(s), newContact(s)]);
  await addInboxMembers(s, inbox.id, [s.agent.id]);
  return { s, inbox, contact };
}

const INT = expect.any(Number);

/** The conversation JSON of docs/chatwoot.md#conversation-json: every field with its type. */
export function expectConversationShape(c: Record<string, any>) {
  expect(c).toMatchObject({
    id: INT,
    account_id: INT,
    inbox_id: INT,
    uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
    status: expect.stringMatching(/^(open|resolved|pending|snoozed)$/),
    additional_attributes: expect.any(Object),
    custom_attributes: expect.any(Object),
    labels: expect.any(Array),
    messages: expect.any(Array),
    agent_last_seen_at: INT,
    assignee_last_seen_at: INT,
    contact_last_seen_at: INT,
    can_reply: expect.any(Boolean),
    muted: expect.any(Boolean),
    created_at: INT,
    updated_at: INT,
    timestamp: INT,
    first_reply_created_at: INT,
    unread_count: INT,
    last_activity_at: INT,
    waiting_since: INT,
    meta: {
      sender: { id: INT, name: expect.any(String), thumbnail: expect.any(String), custom_attributes: expect.any(Object) },
      channel: expect.any(String),
    },
  });
  for (const k of ['id', 'account_id', 'inbox_id', 'created_at', 'timestamp', 'last_activity_at', 'agent_last_seen_at']) {
    expect(Number.isInteger(c[k]), k).toBe(true);
  }
  expect('priority' in c && 'snoozed_until' in c && 'last_non_activity_message' in c && 'sla_policy_id' in c).toBe(true);
  expect(c.snoozed_until === null || typeof c.snoozed_until === 'string').toBe(true);
  expect(c.priority === null || typeof c.priority === 'string').toBe(true);
  expect(c.messages.length).toBeLessThanOrEqual(1);
}

/** Message JSON of docs/chatwoot.md#message-json. */
export function expectMessageShape(m: Record<string, any>) {
  expect(m).toMatchObject({
    id: INT,
    inbox_id: INT,
    conversation_id: INT,
    account_id: INT,
    message_type: expect.any(Number),
    content_type: expect.any(String),
    status: expect.any(String),
    content_attributes: expect.any(Object),
    created_at: INT,
    private: expect.any(Boolean),
  });
  expect([0, 1, 2, 3]).toContain(m.message_type);
  expect('source_id' in m && 'content' in m).toBe(true);
}
