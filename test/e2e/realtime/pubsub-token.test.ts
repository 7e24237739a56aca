import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runtime, seedAccount, unique, type SeededAccount } from '../../support/runtime.ts';
import { connectCable, type CableClient } from '../../support/cable.ts';
import { db, tableName } from '#shared/db/client.ts';
import * as keys from '#shared/db/keys.ts';
import { locatedPubsubToken, pubsubTokenLocation } from '#shared/crypto/tokens.ts';
import { anonymous, apiInbox, contactPath, ok, publicContact, type ApiInbox } from '../public/fixtures.ts';

// A contact inbox's pubsub token names its contact inbox, so the socket finds it by key and the contact
// inbox needs no index copy (one write unit less per new contact inbox). The name is only where to look:
// the token must match the one stored there, and a contact inbox that moved to another contact in a merge
// keeps its token and is found through the index.

describe('/cable: located pubsub tokens', () => {
  let s: SeededAccount;
  let baseUrl: string;
  let inbox: ApiInbox;
  const sockets: CableClient[] = [];

  const subscribe = async (token: string) => {
    const c = await connectCable(baseUrl);
    sockets.push(c);
    await c.waitFor((f) => f.type === 'welcome');
    const id = c.subscribe({ pubsub_token: token });
    return (await c.waitFor((f) => (f.type === 'confirm_subscription' || f.type === 'reject_subscription') && f.identifier === id)).type;
  };
  const storedContactInboxes = async (contactId: number) =>
    (
      await db().send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :ci)',
          ExpressionAttributeValues: { ':pk': keys.contact(s.accountId, contactId).pk, ':ci': 'CI#' },
          ConsistentRead: true,
        }),
      )
    ).Items!;

  beforeAll(async () => {
    baseUrl = (await runtime()).baseUrl;
    s = await seedAccount();
    inbox = await apiInbox(s);
  });
  afterAll(async () => {
    await Promise.all(sockets.map((c) => c.close()));
  });

  it('a new contact inbox’s token names it; the item has no token index copy; the socket confirms it', async () => {
    const api = await anonymous();
    const visitor = await publicContact(api, inbox);
    expect(visitor.pubsub_token).toMatch(/^[A-Za-z0-9_-]{48}$/);
    expect(pubsubTokenLocation(visitor.pubsub_token)).toEqual({ account_id: s.accountId, contact_id: visitor.id, inbox_id: inbox.id });
    const [item] = await storedContactInboxes(visitor.id);
    expect(item.pubsub_token).toBe(visitor.pubsub_token);
    expect(item.gsi1pk).toBeUndefined();
    expect(await subscribe(visitor.pubsub_token)).toBe('confirm_subscription');
  });

  it('refuses a token that names a real contact inbox but is not its token', async () => {
    const api = await anonymous();
    const visitor = await publicContact(api, inbox);
    const forged = locatedPubsubToken(s.accountId, visitor.id, inbox.id);
    expect(pubsubTokenLocation(forged)).toEqual(pubsubTokenLocation(visitor.pubsub_token));
    expect(await subscribe(forged)).toBe('reject_subscription');
    // One character off, and a token naming an account that does not exist.
    const flipped = visitor.pubsub_token.slice(0, -1) + (visitor.pubsub_token.endsWith('A') ? 'B' : 'A');
    expect(await subscribe(flipped)).toBe('reject_subscription');
    expect(await subscribe(locatedPubsubToken(2 ** 40, visitor.id, inbox.id))).toBe('reject_subscription');
  });

  it('a visitor folded into a known contact (public contact update) keeps a working token', async () => {
    const api = await anonymous();
    const holder = ok(await s.admin.api.post(`${s.base}/contacts`, { name: 'Known', email: `${unique('k')}@token.test` }), 'contact');
    const visitor = await publicContact(api, inbox);
    const row = ok(await api.patch(contactPath(inbox, visitor.source_id), { email: holder.payload.contact.email }), 'public update');
    expect(row.id).toBe(holder.payload.contact.id);
    // The moved contact inbox lives in the known contact's partition, so it carries the index copy.
    const moved = (await storedContactInboxes(holder.payload.contact.id)).find((i) => i.source_id === visitor.source_id)!;
    expect(moved.gsi1pk).toBe(keys.contactInboxPubsubIndex(visitor.pubsub_token).gsi1pk);
    expect(await subscribe(visitor.pubsub_token)).toBe('confirm_subscription');
  });
});
