import { beforeAll, describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '#shared/db/client.ts';
import * as keys from '#shared/db/keys.ts';
import { seedAccount, unique, type SeededAccount } from '../../support/runtime.ts';
import { newContact, newInbox, ok } from '../conversations/fixtures.ts';

// The routes that list an account's inboxes by name and type (reports' rows, contactable inboxes, a deleted
// bot's inboxes) read their summaries (AP28), which every write of the inbox moves in the same transaction:
// after a rename (by the settings path and by the channel path), a bot change, an avatar removal and a
// delete, they show what the inbox shows.

describe('inbox summaries follow the inbox', () => {
  let s: SeededAccount;
  let a: { id: number; name: string; channel_type: string };
  let b: { id: number; name: string; channel_type: string };
  let contactId: number;
  const since = Math.floor(Date.now() / 1000) - 86_400;

  const summary = async (inboxId: number) =>
    (await db().send(new GetCommand({ TableName: tableName(), Key: keys.inboxSummary(s.accountId, inboxId), ConsistentRead: true }))).Item;
  const contactable = async () =>
    (ok(await s.admin.api.get(`${s.base}/contacts/${contactId}/contactable_inboxes`), 'contactable').payload as { inbox: any }[]).map(
      (p) => p.inbox,
    );
  const matrixInboxes = async () =>
    ok(
      await s.admin.api.get(
        `${s.base.replace('/api/v1/', '/api/v2/')}/reports/inbox_label_matrix?since=${since}&until=${Math.floor(Date.now() / 1000) + 60}`,
      ),
      'matrix',
    ).inboxes as { id: number; name: string }[];
  const shown = async (id: number) => ok(await s.admin.api.get(`${s.base}/inboxes/${id}`), 'inbox');

  beforeAll(async () => {
    s = await seedAccount();
    a = await newInbox(s, { type: 'api' }, { name: unique('Alpha ') });
    b = await newInbox(s, { type: 'api' }, { name: unique('Beta ') });
    contactId = (await newContact(s)).id;
  });

  it('a new inbox has its summary, and the listings show it', async () => {
    expect(await summary(a.id)).toMatchObject({
      type: 'inbox_summary',
      id: a.id,
      account_id: s.accountId,
      name: a.name,
      channel_type: 'Channel::Api',
      agent_bot_id: null,
    });
    const listed = await contactable();
    expect(listed.find((i) => i.id === a.id)).toMatchObject({ id: a.id, name: a.name, channel_type: 'Channel::Api' });
    expect(listed.find((i) => i.id === b.id)).toMatchObject({ id: b.id, name: b.name, channel_type: 'Channel::Api' });
    expect((await matrixInboxes()).map((i) => i.id).sort()).toEqual([a.id, b.id].sort());
  });

  it('a rename by the settings path (no channel fields) shows at once', async () => {
    const name = unique('Renamed ');
    ok(await s.admin.api.patch(`${s.base}/inboxes/${a.id}`, { name }), 'rename');
    expect((await shown(a.id)).name).toBe(name);
    expect((await summary(a.id))?.name).toBe(name);
    expect((await contactable()).find((i) => i.id === a.id)).toMatchObject({ name, channel_type: 'Channel::Api' });
    expect((await matrixInboxes()).find((i) => i.id === a.id)?.name).toBe(name);
  });

  it('a rename with channel fields (the read-change-write path) shows at once', async () => {
    const name = unique('Channel renamed ');
    ok(await s.admin.api.patch(`${s.base}/inboxes/${b.id}`, { name, channel: { webhook_url: 'https://example.com/hook' } }), 'rename');
    expect((await shown(b.id)).name).toBe(name);
    expect((await contactable()).find((i) => i.id === b.id)).toMatchObject({ name, channel_type: 'Channel::Api' });
    expect((await matrixInboxes()).find((i) => i.id === b.id)?.name).toBe(name);
  });

  it("a bot set and its deletion move the summary's bot; the deletion finds its inboxes by summary", async () => {
    const bot = ok(await s.admin.api.post(`${s.base}/agent_bots`, { name: unique('bot-') }), 'bot') as { id: number };
    ok(await s.admin.api.post(`${s.base}/inboxes/${a.id}/set_agent_bot`, { agent_bot: bot.id }), 'set bot');
    expect((await summary(a.id))?.agent_bot_id).toBe(bot.id);
    expect((await summary(b.id))?.agent_bot_id).toBeNull();
    ok(await s.admin.api.delete(`${s.base}/agent_bots/${bot.id}`), 'delete bot');
    expect(ok(await s.admin.api.get(`${s.base}/inboxes/${a.id}/agent_bot`), 'agent bot')).toEqual({ agent_bot: {} });
    expect((await summary(a.id))?.agent_bot_id).toBeNull();
  });

  it('an avatar removal empties the summary avatar', async () => {
    expect((await s.admin.api.delete(`${s.base}/inboxes/${a.id}/avatar`)).status).toBe(200);
    expect((await summary(a.id))?.avatar_url).toBe('');
    expect((await contactable()).find((i) => i.id === a.id)?.avatar_url).toBe((await shown(a.id)).avatar_url);
  });

  it('a deleted inbox leaves the listings with its summary', async () => {
    ok(await s.admin.api.delete(`${s.base}/inboxes/${b.id}`), 'delete');
    expect(await summary(b.id)).toBeUndefined();
    expect((await contactable()).map((i) => i.id)).toEqual([a.id]);
    expect((await matrixInboxes()).map((i) => i.id)).toEqual([a.id]);
  });
});
