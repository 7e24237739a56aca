import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookRequest } from '#shared/channels/channel.ts';
import { facebookWebhook } from '#shared/channels/facebook/webhook.ts';
import { ingestWebhook } from '#shared/channels/ingest.ts';
import { instagramWebhook } from '#shared/channels/instagram/webhook.ts';
import { secretMatches } from '#shared/channels/signatures.ts';
import { overrideEnv } from '../../support/env.ts';

// The ingest's order for Meta's app-wide signatures: a Messenger or Instagram payload naming many pages is refused
// before any page's inbox is looked up. The unit project has no table: a single lookup would reach for one and fail
// the test (test/support/no-network.ts), so a 401 here proves nothing was read.

const manyPages = (object: string) =>
  Buffer.from(
    JSON.stringify({ object, entry: Array.from({ length: 50 }, (_, i) => ({ id: String(100_000 + i), time: 1, messaging: [] })) }),
  );

const request = (body: Buffer, headers: Record<string, string>): WebhookRequest => ({
  method: 'POST',
  path: '/bot',
  params: {},
  query: {},
  headers: { 'content-type': 'application/json', ...headers },
  body,
});

describe('ingest of an app-signed webhook', () => {
  let restore: () => void;
  beforeAll(() => {
    restore = overrideEnv({ FB_APP_SECRET: 'app-secret', TABLE_NAME: 'no-table-in-unit-tests' });
  });
  afterAll(() => restore());

  it('refuses a forged Messenger payload for 50 pages with 401 before looking any page up', async () => {
    const answer = await ingestWebhook(facebookWebhook, request(manyPages('page'), { 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` }));
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ error: 'Invalid signature' });
  });

  it('refuses an unsigned Instagram payload for 50 accounts with 401 before looking any account up', async () => {
    const answer = await ingestWebhook(instagramWebhook, request(manyPages('instagram'), {}));
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ error: 'Invalid signature' });
  });
});

describe('a shared secret presented as is (verify tokens)', () => {
  it('matches only the expected secret, and nothing when none is expected', () => {
    expect(secretMatches('tok-123', 'tok-123')).toBe(true);
    expect(secretMatches('tok-124', 'tok-123')).toBe(false);
    expect(secretMatches('tok-1234', 'tok-123')).toBe(false);
    expect(secretMatches(undefined, 'tok-123')).toBe(false);
    expect(secretMatches('', '')).toBe(false);
    expect(secretMatches(undefined, undefined)).toBe(false);
  });
});
