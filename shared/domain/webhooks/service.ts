import { randomBytes } from 'node:crypto';
import { nextId } from '#shared/db/ids.ts';
import { getInbox, getInboxes } from '#shared/db/repositories/inboxes.ts';
import * as repo from '#shared/db/repositories/webhooks.ts';
import { retryStale } from '#shared/db/repositories/versioned.ts';
import { invalidField, notFound } from '#shared/errors.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import { now } from '#shared/model/time.ts';
import { DEFAULT_SUBSCRIPTIONS, type WebhookRecord } from '#shared/model/webhooks.ts';
import type { NewWebhook, WebhookUpdate } from './schemas.ts';
import { webhookJson } from './view.ts';

/** 256 random bits in the Standard Webhooks form, which Chatwoot-style HMAC receivers use as is. */
const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

async function requireWebhook(accountId: number, id: number, consistent = false): Promise<WebhookRecord> {
  const w = await repo.getWebhook(accountId, id, consistent);
  if (!w) throw notFound('Webhook');
  return w;
}

/** The account's inbox a webhook names, or 422 on `inbox_id`. */
async function requireInbox(accountId: number, inboxId: number): Promise<InboxRecord> {
  const inbox = await getInbox(accountId, inboxId);
  if (!inbox) throw invalidField('inbox_id', 'Inbox could not be found in this account', 'not_found');
  return inbox;
}

/** Chatwoot's list shape (docs/chatwoot.md#webhook-routes-and-fields); the contract shows no list. */
export async function listWebhooks(accountId: number) {
  const webhooks = await repo.listWebhooks(accountId);
  const inboxIds = [...new Set(webhooks.flatMap((w) => (w.inbox_id ? [w.inbox_id] : [])))];
  const inboxes = new Map((await getInboxes(accountId, inboxIds)).flatMap((i) => (i ? [[i.id, i] as const] : [])));
  return { payload: { webhooks: webhooks.map((w) => webhookJson(w, w.inbox_id ? inboxes.get(w.inbox_id) : undefined)) } };
}

/** Contract endpoint 8 (docs/contract.md#endpoints). */
export async function createWebhook(accountId: number, input: NewWebhook) {
  const inbox = input.inbox_id ? await requireInbox(accountId, input.inbox_id) : undefined;
  const t = now();
  const webhook: WebhookRecord = {
    id: await nextId('webhook'),
    account_id: accountId,
    name: input.name ?? null,
    url: input.url,
    subscriptions: input.subscriptions ?? [...DEFAULT_SUBSCRIPTIONS],
    inbox_id: inbox?.id ?? null,
    secret: newSecret(),
    created_at: t,
    updated_at: t,
    version: 1,
  };
  await repo.saveWebhook(undefined, webhook);
  return webhookJson(webhook, inbox);
}

/** Contract endpoint 9 (docs/contract.md#endpoints): any subset of url, name and subscriptions. */
export async function updateWebhook(accountId: number, id: number, input: WebhookUpdate) {
  const named = input.inbox_id ? await requireInbox(accountId, input.inbox_id) : undefined;
  return retryStale(async (consistent) => {
    const before = await requireWebhook(accountId, id, consistent);
    if (input.url === undefined || input.url === before.url) {
      // The rest is replaced as sent (the last writer wins), on the stored item.
      const set = { name: input.name, subscriptions: input.subscriptions ?? undefined, inbox_id: input.inbox_id, updated_at: now() };
      const saved = await repo.changeWebhookAttributes(accountId, id, { set });
      if (!saved) throw notFound('Webhook');
      const inbox = named ?? (saved.inbox_id ? await getInbox(accountId, saved.inbox_id) : undefined);
      return webhookJson(saved, inbox);
    }
    const after: WebhookRecord = {
      ...before,
      url: input.url ?? before.url,
      name: input.name !== undefined ? input.name : before.name,
      subscriptions: input.subscriptions ?? before.subscriptions,
      inbox_id: input.inbox_id !== undefined ? input.inbox_id : before.inbox_id,
      updated_at: now(),
      version: before.version + 1,
    };
    await repo.saveWebhook(before, after);
    const inbox = named ?? (after.inbox_id ? await getInbox(accountId, after.inbox_id) : undefined);
    return webhookJson(after, inbox);
  });
}

export async function deleteWebhook(accountId: number, id: number): Promise<void> {
  await retryStale(async (consistent) => repo.deleteWebhook(await requireWebhook(accountId, id, consistent)));
}
