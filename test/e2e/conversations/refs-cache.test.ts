import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as keys from '#shared/db/keys.ts';
import { REFS_CACHE_TTL_MS, refsCacheForTests } from '#shared/domain/conversations/refs-cache.ts';
import { callRecorder } from '../../support/calls.ts';
import { runtime, seedAccount, type SeededAccount } from '../../support/runtime.ts';
import { newContact, newConversation, newInbox, newTeam, ok } from './fixtures.ts';

// The JSON of conversations shows their inbox, assignee (user and membership), team and bot. Those change
// like configuration, so a container keeps them REFS_CACHE_TTL_MS (refs-cache.ts): a list page after the
// first reads only the conversations and their contacts. The container's own changes drop the cache at
// once; another container's change shows once the TTL has passed (the bound docs/data-model.md#caches states).

describe('references of conversation JSON through the refs cache', () => {
  let s: SeededAccount;
  let inboxId: number;
  let teamId: number;
  let clock = Date.now();
  let recorder: ReturnType<typeof callRecorder>;

  beforeAll(async () => {
    s = await seedAccount();
    const inbox = await newInbox(s, { type: 'api' }, { name: 'Cached inbox' });
    inboxId = inbox.id;
    teamId = (await newTeam(s, [s.admin.id])).id;
    const contact = await newContact(s);
    await newConversation(s, { inbox_id: inboxId, contact_id: contact.id, assignee_id: s.admin.id, team_id: teamId });
    refsCacheForTests.now = () => clock;
    recorder = callRecorder('refsCacheTestRecorder');
  });
  afterAll(() => {
    refsCacheForTests.now = () => Date.now();
  });

  // The event pipeline shares this process (and its own cache's reads would show here): it is paused
  // while a list is measured.
  const list = async () => {
    const { pipeline } = await runtime();
    await pipeline.pause();
    try {
      recorder.take();
      const body = ok(await s.admin.api.get(`${s.base}/conversations?inbox_id=${inboxId}&status=all`), 'list');
      return { c: body.data.payload[0], reads: recorder.take().map((c) => c.input) };
    } finally {
      await pipeline.resume();
    }
  };
  const readsOf = (reads: string[], key: { pk: string; sk: string }) =>
    reads.filter((r) => r.includes(`"${key.pk}"`) && r.includes(`"${key.sk}"`));

  it('a second list reads no inbox, user, membership or team, and shows the same', async () => {
    const first = await list();
    expect(first.c.inbox_id).toBe(inboxId);
    expect(first.c.meta.assignee).toMatchObject({ id: s.admin.id, availability_status: expect.any(String) });
    expect(first.c.meta.team).toMatchObject({ id: teamId });
    const second = await list();
    expect(second.c).toEqual(first.c);
    expect(readsOf(second.reads, keys.inbox(s.accountId, inboxId))).toEqual([]);
    expect(readsOf(second.reads, keys.user(s.admin.id))).toEqual([]);
    expect(readsOf(second.reads, keys.accountUser(s.accountId, s.admin.id))).toEqual([]);
    expect(readsOf(second.reads, keys.team(s.accountId, teamId))).toEqual([]);
    // The conversation itself is read fresh every time: by its key, or whole from the account's activity index (AP62)
    // or its inbox's (AP63).
    const sources = [
      keys.conversation(s.accountId, first.c.id).pk,
      keys.conversationsByAccountStatus(
        s.accountId,
        first.c.status,
        keys.accountListPart({ id: first.c.id, team_id: first.c.meta.team?.id ?? null }),
      ).gsi4pk,
      keys.conversationsByInboxStatus(s.accountId, inboxId, first.c.status).gsi3pk,
    ];
    expect(second.reads.some((r) => sources.some((k) => r.includes(`"${k}"`)))).toBe(true);
  });

  it("this container's own change shows at once", async () => {
    ok(await s.admin.api.patch(`${s.base}/teams/${teamId}`, { name: 'renamed team' }), 'team');
    ok(
      await s.admin.api.post(`${s.base.replace(/\/accounts\/\d+$/, '')}/profile/availability`, {
        profile: { availability: 'busy', account_id: s.accountId },
      }),
      'availability',
    );
    const { c } = await list();
    expect(c.meta.team.name).toBe('renamed team');
    expect(c.meta.assignee.availability_status).toBe('busy');
  });

  it("another container's change shows once the TTL has passed, not before", async () => {
    await list();
    // A write by another container: its own client, so this process's cache hears nothing of it.
    const rt = await runtime();
    const other = DynamoDBDocumentClient.from(
      new DynamoDBClient({ region: process.env.AWS_REGION ?? 'us-east-1', endpoint: rt.dynamodbEndpoint }),
    );
    await other.send(
      new UpdateCommand({
        TableName: rt.tableName,
        Key: keys.user(s.admin.id),
        UpdateExpression: 'SET #n = :n',
        ExpressionAttributeNames: { '#n': 'name' },
        ExpressionAttributeValues: { ':n': 'Renamed elsewhere' },
      }),
    );
    expect((await list()).c.meta.assignee.name).not.toBe('Renamed elsewhere');
    clock += REFS_CACHE_TTL_MS;
    expect((await list()).c.meta.assignee.name).toBe('Renamed elsewhere');
  });
});
