import { expect } from 'vitest';
import { client, runtime, seedAccount, unique, type Client, type SeededAccount } from '../../support/runtime.ts';
import { ok } from '../conversations/fixtures.ts';

// Setups of the public interface tests: an account with API inboxes (made by its administrator), and
// an end client that knows nothing but an inbox identifier.

export { ok };

export interface ApiInbox {
  id: number;
  inbox_identifier: string;
  hmac_token: string;
}

export async function apiInbox(s: SeededAccount, channel: Record<string, unknown> = {}): Promise<ApiInbox> {
  return ok(await s.admin.api.post(`${s.base}/inboxes`, { name: unique('api-'), channel: { type: 'api', ...channel } }), 'create inbox');
}

/** A client without credentials, as the end client of an API inbox is. */
export async function anonymous(): Promise<Client> {
  return client((await runtime()).baseUrl);
}

export const inboxPath = (inbox: Pick<ApiInbox, 'inbox_identifier'> | string) =>
  `/public/api/v1/inboxes/${encodeURIComponent(typeof inbox === 'string' ? inbox : inbox.inbox_identifier)}`;

export const contactPath = (inbox: Pick<ApiInbox, 'inbox_identifier'> | string, sourceId: string) =>
  `${inboxPath(inbox)}/contacts/${encodeURIComponent(sourceId)}`;

export const conversationPath = (inbox: Pick<ApiInbox, 'inbox_identifier'> | string, sourceId: string, id: number | string) =>
  `${contactPath(inbox, sourceId)}/conversations/${id}`;

export interface PublicContact {
  source_id: string;
  pubsub_token: string;
  id: number;
  name: string;
  email: string | null;
  phone_number: string | null;
}

export async function publicContact(api: Client, inbox: ApiInbox, body: Record<string, unknown> = {}): Promise<PublicContact> {
  return ok(await api.post(`${inboxPath(inbox)}/contacts`, { name: unique('Client '), ...body }), 'public contact');
}

export async function publicConversation(api: Client, inbox: ApiInbox, sourceId: string, body: Record<string, unknown> = {}) {
  return ok(await api.post(`${contactPath(inbox, sourceId)}/conversations`, body), 'public conversation') as Record<string, any>;
}

export async function publicMessage(api: Client, inbox: ApiInbox, sourceId: string, id: number, content: string) {
  return ok(await api.post(`${conversationPath(inbox, sourceId, id)}/messages`, { content }), 'public message') as Record<string, any>;
}

export { seedAccount, unique, type SeededAccount };

const kind = (x: unknown) => (x === null ? 'null' : Array.isArray(x) ? 'array' : Number.isInteger(x) ? 'integer' : typeof x);

/** The contract's public message (docs/contract.md#public-message): every field, with its type. */
export const MESSAGE_FIELDS: Record<string, string> = {
  id: 'integer',
  content: 'string',
  account_id: 'integer',
  inbox_id: 'integer',
  conversation_id: 'integer',
  message_type: 'integer',
  created_at: 'integer',
  updated_at: 'integer',
  private: 'boolean',
  status: 'string',
  source_id: 'string',
  content_type: 'string',
  content_attributes: 'object',
  sender_type: 'string',
  sender_id: 'integer',
  external_source_ids: 'object',
  additional_attributes: 'object',
  processed_message_content: 'string',
  sentiment: 'object',
  conversation: 'object',
  attachment: 'object',
  sender: 'object',
};

export function expectPublicMessage(m: Record<string, unknown>) {
  for (const [field, type] of Object.entries(MESSAGE_FIELDS)) expect(kind(m[field]), `message.${field}`).toBe(type);
}

/**
 * The contract's public conversation (docs/contract.md#public-conversation): `id` integer, `inbox_id` string,
 * `messages` of full messages, `contact` object.
 */
export function expectPublicConversation(c: Record<string, any>) {
  expect(kind(c.id), 'id').toBe('integer');
  expect(kind(c.inbox_id), 'inbox_id').toBe('string');
  expect(kind(c.messages), 'messages').toBe('array');
  expect(kind(c.contact), 'contact').toBe('object');
  expect(kind(c.contact_last_seen_at)).toBe('integer');
  expect(kind(c.agent_last_seen_at)).toBe('integer');
  expect(c.uuid).toMatch(/^[0-9a-f-]{36}$/);
  for (const m of c.messages) expectPublicMessage(m);
}
