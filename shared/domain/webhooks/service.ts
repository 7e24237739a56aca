import { randomBytes } from 'node:crypto';
import { nextId } from '../../db/ids.ts';
import * as repo from '../../db/repositories/webhooks.ts';
import { retryStale } from '../../db/repositories/versioned.ts';
import { notFound } from '../../http/errors.ts';
import { now } from '../model.ts';
import { DEFAULT_SUBSCRIPTIONS, type WebhookRecord } from './model.ts';
import type { NewWebhook, WebhookUpdate } from './schemas.ts';
import { webhookJson } from './view.ts';

/** 256 random bits in the Standard Webhooks form, which Chatwoot-style HMAC receivers use as is. */
const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

async function requireWebhook(accountId: number, id: number, consistent = false): Promise<WebhookRecord> {
  const w = await repo.getWebhook(accountId, id, consistent);
  if (!w) throw notFound('Webhook');
  return w;
}

/** Chatwoot's list shape (reference §8.1); the spec shows no list. */
export async function listWebhooks(accountId: number) {
  return { payload: { webhooks: (await repo.listWebhooks(accountId)).map(webhookJson) } };
}

/** Spec endpoint 8. */
export async function createWebhook(accountId: number, input: NewWebhook) {
  const t = now();
  const webhook: WebhookRecord = {
    id: await nextId('webhook'),
    account_id: accountId,
    name: input.name ?? null,
    url: input.url,
    subscriptions: input.subscriptions ?? [...DEFAULT_SUBSCRIPTIONS],
    secret: newSecret(),
    created_at: t,
    updated_at: t,
    version: 1,
  };
  await repo.saveWebhook(undefined, webhook);
  return webhookJson(webhook);
}

/** Spec endpoint 9: any subset of url, name and subscriptions. */
export async function updateWebhook(accountId: number, id: number, input: WebhookUpdate) {
  return retryStale(async (consistent) => {
    const before = await requireWebhook(accountId, id, consistent);
    const after: WebhookRecord = {
      ...before,
      url: input.url ?? before.url,
      name: input.name !== undefined ? input.name : before.name,
      subscriptions: input.subscriptions ?? before.subscriptions,
      updated_at: now(),
      version: before.version + 1,
    };
    await repo.saveWebhook(before, after);
    return webhookJson(after);
  });
}

export async function deleteWebhook(accountId: number, id: number): Promise<void> {
  await retryStale(async (consistent) => repo.deleteWebhook(await requireWebhook(accountId, id, consistent)));
}
