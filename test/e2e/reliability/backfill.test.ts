import { randomBytes } from 'node:crypto';
import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, runtime, seedAccount, unique, type SeededAccount } from '../../support/runtime.ts';
import { connectCable, type CableClient } from '../../support/cable.ts';
import { db, tableName } from '#shared/db/client.ts';
import * as keys from '#shared/db/keys.ts';
import { backfillAll, missingKeys } from '#shared/db/backfill.ts';
import { newContact, newConversation, newInbox, newTeam, ok } from '../conversations/fixtures.ts';

// Items written before an index existed (a deployed table upgraded in place) lack its keys: the
// conversation is missing from lists, the visitor's socket cannot subscribe. `npm run backfill` adds them.

const raw = async (key: { pk: string; sk: string }) =>
  (await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item!;
const strip = (key: { pk: string; sk: string }, attrs: string[]) =>
  db().send(new UpdateCommand({ TableName: tableName(), Key: key, UpdateExpression: `REMOVE ${attrs.join(', ')}` }));

describe('npm run backfill: index keys for items written before their index', () => {
  let s: SeededAccount;
  let baseUrl: string;
  const sockets: CableClient[] = [];
  beforeAll(async () => {
    baseUrl = (await runtime()).baseUrl;
    s = await seedAccount();
  });
  afterAll(async () => {
    await Promise.all(sockets.map((c) => c.close()));
  });

  it('gives an old contact inbox its pubsub lookup and an old conversation its list index; a second run changes nothing', async () => {
    const inbox = (await newInbox(s)) as unknown as { id: number; inbox_identifier: string };
    const pub = client(baseUrl);
    const visitor = ok(await pub.post(`/public/api/v1/inboxes/${inbox.inbox_identifier}/contacts`, { name: unique('Old ') }), 'contact');
    const conv = ok(
      await pub.post(`/public/api/v1/inboxes/${inbox.inbox_identifier}/contacts/${visitor.source_id}/conversations`, {}),
      'conversation',
    );

    const convKey = keys.conversation(s.accountId, conv.id);
    const ciItem = (
      await db().send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :ci)',
          ExpressionAttributeValues: { ':pk': keys.contact(s.accountId, visitor.id).pk, ':ci': 'CI#' },
          ConsistentRead: true,
        }),
      )
    ).Items![0];
    const ci = { pk: String(ciItem.pk), sk: String(ciItem.sk) };
    // A contact inbox of that time: its pubsub token is 24 random characters, naming no contact inbox.
    const token = randomBytes(18).toString('base64url');
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: ci,
        UpdateExpression: 'SET pubsub_token = :t',
        ExpressionAttributeValues: { ':t': token },
      }),
    );
    await strip(convKey, ['gsi3pk', 'gsi3sk', 'gsi4pk', 'gsi4sk']);
    const contactKey = keys.contact(s.accountId, visitor.id);
    await strip(ci, ['gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk']);
    await strip(contactKey, ['gsi2pk', 'gsi2sk']);
    expect(missingKeys(await raw(convKey))).toEqual({
      ...keys.conversationIndex((await raw(convKey)) as never),
      ...keys.accountConversationIndex((await raw(convKey)) as never),
    });
    expect(missingKeys(await raw(ci))).toEqual({
      ...keys.contactInboxPubsubIndex(token),
      ...keys.inboxContactIndex(s.accountId, inbox.id, visitor.id, visitor.source_id),
    });
    // The purge's enumerations (AP260, AP261): an anonymous contact and an inbox's contact inboxes.
    expect(missingKeys(await raw(contactKey))).toEqual(keys.unlistedContactIndex(s.accountId, visitor.id));

    // Before: the list misses the conversation and the socket refuses the visitor's token.
    const listed = async () =>
      (ok(await s.admin.api.get(`${s.base}/conversations?inbox_id=${inbox.id}&status=all`), 'list').data.payload as { id: number }[]).map(
        (c) => c.id,
      );
    expect(await listed()).not.toContain(conv.id);
    const subscribe = async () => {
      const c = await connectCable(baseUrl);
      sockets.push(c);
      await c.waitFor((f) => f.type === 'welcome');
      const id = c.subscribe({ pubsub_token: token });
      return (await c.waitFor((f) => (f.type === 'confirm_subscription' || f.type === 'reject_subscription') && f.identifier === id)).type;
    };
    expect(await subscribe()).toBe('reject_subscription');

    const first = await backfillAll({ pageSize: 100 });
    expect(first.complete).toBe(true);
    expect(first.updated).toBeGreaterThanOrEqual(3);
    expect((await raw(convKey)).gsi3pk).toBe(keys.conversationIndex((await raw(convKey)) as never).gsi3pk);
    expect((await raw(convKey)).gsi4pk).toBe(keys.accountConversationIndex((await raw(convKey)) as never).gsi4pk);
    expect((await raw(ci)).gsi1pk).toBe(keys.contactInboxPubsubIndex(token).gsi1pk);
    expect((await raw(ci)).gsi2pk).toBe(keys.inboxContactIndex(s.accountId, inbox.id, visitor.id, visitor.source_id).gsi2pk);
    expect((await raw(contactKey)).gsi2sk).toBe(keys.unlistedContactIndex(s.accountId, visitor.id).gsi2sk);

    expect(await listed()).toContain(conv.id);
    // And the whole account's list (the account-wide index, AP62).
    expect(
      (ok(await s.admin.api.get(`${s.base}/conversations?status=all`), 'account list').data.payload as { id: number }[]).map((c) => c.id),
    ).toContain(conv.id);
    expect(await subscribe()).toBe('confirm_subscription');

    const again = await backfillAll({ pageSize: 100 });
    expect(again).toMatchObject({ complete: true, updated: 0 });
    expect(again.scanned).toBeGreaterThan(0);
  });

  it("gives an account made before inbox summaries its inboxes' summaries (AP28) and their mark (AP29)", async () => {
    const old = await seedAccount();
    const inbox = await newInbox(old, { type: 'api' }, { name: unique('Old inbox ') });
    const mark = keys.inboxSummariesComplete(old.accountId);
    const summary = keys.inboxSummary(old.accountId, inbox.id);
    await db().send(new DeleteCommand({ TableName: tableName(), Key: mark }));
    await db().send(new DeleteCommand({ TableName: tableName(), Key: summary }));
    const get = async (key: { pk: string; sk: string }) =>
      (await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;

    const first = await backfillAll({ pageSize: 100 });
    expect(first.complete).toBe(true);
    expect(first.updated).toBeGreaterThanOrEqual(1);
    expect(await get(mark)).toMatchObject({ type: 'inbox_summaries', account_id: old.accountId });
    expect(await get(summary)).toMatchObject({ type: 'inbox_summary', id: inbox.id, name: inbox.name, channel_type: 'Channel::Api' });
    expect(await backfillAll({ pageSize: 100 })).toMatchObject({ complete: true, updated: 0 });
  });

  it('moves the team conversations of an account made before the team partitions (AP62) out of the shards, and marks it', async () => {
    const old = await seedAccount();
    const inbox = await newInbox(old);
    const team = await newTeam(old);
    const contact = await newContact(old);
    const conv = await newConversation(old, { inbox_id: inbox.id, contact_id: contact.id, team_id: team.id });
    const convKey = keys.conversation(old.accountId, conv.id);
    const shard = keys.conversationsByAccountStatus(old.accountId, 'open', conv.id % keys.LIST_SHARDS).gsi4pk;
    const own = keys.conversationsByAccountStatus(old.accountId, 'open', `T${team.id}`).gsi4pk;
    expect((await raw(convKey)).gsi4pk).toBe(own);
    // As the account and its conversation were before: unmarked, the team's conversation in a shard.
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.account(old.accountId),
        UpdateExpression: 'REMOVE team_list_partitions',
      }),
    );
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: convKey,
        UpdateExpression: 'SET gsi4pk = :p',
        ExpressionAttributeValues: { ':p': shard },
      }),
    );

    const first = await backfillAll({ pageSize: 100 });
    expect(first.complete).toBe(true);
    expect((await raw(convKey)).gsi4pk).toBe(own);
    expect((await raw(keys.account(old.accountId))).team_list_partitions).toBe(true);
    expect(await backfillAll({ pageSize: 100 })).toMatchObject({ complete: true, updated: 0 });
    // The team's page (the account as the credential cache may still hold it, unmarked, or marked) lists it.
    const teamPage = ok(await old.admin.api.get(`${old.base}/conversations?team_id=${team.id}`), 'team page').data;
    expect(teamPage.meta.all_count).toBe(1);
    expect(teamPage.payload.map((c: { id: number }) => c.id)).toEqual([conv.id]);
  });
});
