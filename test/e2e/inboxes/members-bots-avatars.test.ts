import { beforeAll, describe, expect, it } from 'vitest';
import { client, expectErrorBody, runtime, seedAccount, unique, type SeededAccount, fieldsOf } from '../../support/runtime.ts';
import { download, SIGNED_LINK } from '../../support/files.ts';

// Inbox members (docs/chatwoot.md#inbox-members-and-agent-json), agent bot attachment
// (docs/chatwoot.md#agent-bot-of-an-inbox) and avatar uploads (contract rule 2, docs/contract.md#rules).

// A 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

describe('inbox members, agent bots, avatars', () => {
  let s: SeededAccount;
  let other: SeededAccount;
  const ids = (payload: { id: number }[]) => payload.map((a) => a.id).sort((a, b) => a - b);

  beforeAll(async () => {
    await runtime();
    [s, other] = await Promise.all([seedAccount(), seedAccount()]);
  });

  const newInbox = async (acct = s, body: Record<string, unknown> = {}) => {
    const res = await acct.admin.api.post(`${acct.base}/inboxes`, { name: unique('inbox-'), channel: { type: 'api' }, ...body });
    if (res.status !== 200) throw new Error(`create inbox: ${res.status} ${res.text}`);
    return res.body as Record<string, any>;
  };

  describe('inbox members', () => {
    it('adds, lists, replaces and removes members, answering agents', async () => {
      const inbox = await newInbox();
      const added = await s.admin.api.post(`${s.base}/inbox_members`, { inbox_id: inbox.id, user_ids: [s.agent.id] });
      expect(added.status).toBe(200);
      expect(added.body.payload).toHaveLength(1);
      expect(added.body.payload[0]).toMatchObject({
        id: s.agent.id,
        account_id: s.accountId,
        availability_status: expect.stringMatching(/^(online|offline|busy)$/),
        auto_offline: expect.any(Boolean),
        confirmed: true,
        email: expect.stringContaining('@'),
        available_name: expect.any(String),
        name: expect.any(String),
        role: 'agent',
        thumbnail: expect.any(String),
        custom_role_id: null,
      });
      // Adding again (string ids, as form clients send them) changes nothing; the payload is every member.
      const again = await s.admin.api.post(`${s.base}/inbox_members`, {
        inbox_id: String(inbox.id),
        user_ids: [String(s.agent.id), s.admin.id],
      });
      expect(ids(again.body.payload)).toEqual([s.admin.id, s.agent.id].sort((a, b) => a - b));

      const listed = await s.admin.api.get(`${s.base}/inbox_members/${inbox.id}`);
      expect(listed.body).toEqual(again.body);
      // A member agent may list the members.
      expect(ids((await s.agent.api.get(`${s.base}/inbox_members/${inbox.id}`)).body.payload)).toEqual(ids(again.body.payload));

      const replaced = await s.admin.api.patch(`${s.base}/inbox_members`, { inbox_id: inbox.id, user_ids: [s.admin.id] });
      expect(ids(replaced.body.payload)).toEqual([s.admin.id]);
      // No longer a member: the agent sees neither the inbox nor its members.
      expectErrorBody(await s.agent.api.get(`${s.base}/inbox_members/${inbox.id}`), 404);
      expectErrorBody(await s.agent.api.get(`${s.base}/inboxes/${inbox.id}`), 404);

      const removed = await s.admin.api.delete(`${s.base}/inbox_members`, { inbox_id: inbox.id, user_ids: [s.admin.id] });
      expect(removed.status).toBe(200);
      expect(removed.text).toBe('');
      expect((await s.admin.api.get(`${s.base}/inbox_members/${inbox.id}`)).body).toEqual({ payload: [] });
    });

    it('refuses users of other accounts (422), foreign inboxes (404) and agents (403)', async () => {
      const inbox = await newInbox();
      const stranger = expectErrorBody(
        await s.admin.api.post(`${s.base}/inbox_members`, { inbox_id: inbox.id, user_ids: [other.agent.id] }),
        422,
      );
      expect(fieldsOf(stranger)).toEqual({ user_ids: 'invalid' });
      expect(fieldsOf(expectErrorBody(await s.admin.api.post(`${s.base}/inbox_members`, { inbox_id: inbox.id }), 422))).toEqual({
        user_ids: 'required',
      });
      expect(fieldsOf(expectErrorBody(await s.admin.api.post(`${s.base}/inbox_members`, { user_ids: [] }), 422))).toEqual({
        inbox_id: 'required',
      });
      expect(
        fieldsOf(expectErrorBody(await s.admin.api.post(`${s.base}/inbox_members`, { inbox_id: inbox.id, user_ids: ['x'] }), 422)),
      ).toEqual({
        'user_ids[0]': 'invalid',
      });
      const theirs = await newInbox(other);
      expectErrorBody(await s.admin.api.post(`${s.base}/inbox_members`, { inbox_id: theirs.id, user_ids: [s.agent.id] }), 404);
      expectErrorBody(await s.admin.api.get(`${s.base}/inbox_members/${theirs.id}`), 404);
      expectErrorBody(await other.admin.api.post(`${s.base}/inbox_members`, { inbox_id: inbox.id, user_ids: [other.agent.id] }), 404);
      for (const method of ['post', 'patch', 'delete'] as const) {
        expectErrorBody(await s.agent.api[method](`${s.base}/inbox_members`, { inbox_id: inbox.id, user_ids: [s.agent.id] }), 403);
      }
      expect((await s.admin.api.get(`${s.base}/inbox_members/${inbox.id}`)).body).toEqual({ payload: [] });
    });
  });

  describe('agent bot', () => {
    const newBot = async (accountId: number | null, acct = s) => {
      const res = await acct.platform.post('/platform/api/v1/agent_bots', {
        name: unique('bot-'),
        ...(accountId ? { account_id: accountId } : {}),
      });
      if (res.status !== 200) throw new Error(`create bot: ${res.status} ${res.text}`);
      return res.body as { id: number; name: string; access_token: string };
    };

    it('attaches and detaches the account bot; agents read it', async () => {
      const inbox = await newInbox();
      await s.admin.api.post(`${s.base}/inbox_members`, { inbox_id: inbox.id, user_ids: [s.agent.id] });
      expect((await s.admin.api.get(`${s.base}/inboxes/${inbox.id}/agent_bot`)).body).toEqual({ agent_bot: {} });
      const bot = await newBot(s.accountId);
      const set = await s.admin.api.post(`${s.base}/inboxes/${inbox.id}/set_agent_bot`, { agent_bot: bot.id });
      expect(set.status).toBe(200);
      expect(set.text).toBe('');
      const shown = await s.agent.api.get(`${s.base}/inboxes/${inbox.id}/agent_bot`);
      expect(shown.body.agent_bot).toMatchObject({ id: bot.id, name: bot.name, bot_type: 'webhook', account_id: s.accountId });
      expect('access_token' in shown.body.agent_bot).toBe(false);
      expect((await s.admin.api.get(`${s.base}/inboxes/${inbox.id}`)).body.agent_bot_id).toBe(bot.id);

      expect((await s.admin.api.post(`${s.base}/inboxes/${inbox.id}/set_agent_bot`, { agent_bot: null })).status).toBe(200);
      expect((await s.admin.api.get(`${s.base}/inboxes/${inbox.id}/agent_bot`)).body).toEqual({ agent_bot: {} });
      expect((await s.admin.api.get(`${s.base}/inboxes/${inbox.id}`)).body.agent_bot_id).toBeNull();
    });

    it("lets a system bot's token act in the account while it is attached to one of its inboxes", async () => {
      const rt = await runtime();
      const bot = await newBot(null);
      const botApi = client(rt.baseUrl, bot.access_token);
      const probe = async () => (await botApi.post(`${s.base}/conversations/999999999/toggle_status`, { status: 'open' })).body.description;
      expect(await probe()).toBe('Account not found');

      const [a, b] = [await newInbox(), await newInbox()];
      await s.admin.api.post(`${s.base}/inboxes/${a.id}/set_agent_bot`, { agent_bot: bot.id });
      await s.admin.api.post(`${s.base}/inboxes/${b.id}/set_agent_bot`, { agent_bot: String(bot.id) });
      expect(await probe()).not.toBe('Account not found');
      // Still used by inbox b: access stays.
      await s.admin.api.post(`${s.base}/inboxes/${a.id}/set_agent_bot`, { agent_bot: '' });
      expect(await probe()).not.toBe('Account not found');
      // Deleting the last inbox that uses it revokes access.
      await s.admin.api.delete(`${s.base}/inboxes/${b.id}`);
      expect(await probe()).toBe('Account not found');
    });

    it('refuses bots of other accounts and unknown bots (404), agents (403), bad ids (422)', async () => {
      const inbox = await newInbox();
      const theirs = await newBot(other.accountId, other);
      expect(
        expectErrorBody(await s.admin.api.post(`${s.base}/inboxes/${inbox.id}/set_agent_bot`, { agent_bot: theirs.id }), 404).description,
      ).toBe('Agent bot not found');
      expectErrorBody(await s.admin.api.post(`${s.base}/inboxes/${inbox.id}/set_agent_bot`, { agent_bot: 999999999 }), 404);
      expectErrorBody(await s.agent.api.post(`${s.base}/inboxes/${inbox.id}/set_agent_bot`, { agent_bot: null }), 403);
      expectErrorBody(await other.admin.api.post(`${other.base}/inboxes/${inbox.id}/set_agent_bot`, { agent_bot: theirs.id }), 404);
      expectErrorBody(await s.agent.api.get(`${s.base}/inboxes/${inbox.id}/agent_bot`), 404);
      expectErrorBody(await other.admin.api.get(`${other.base}/inboxes/${inbox.id}/agent_bot`), 404);
      expect(
        fieldsOf(expectErrorBody(await s.admin.api.post(`${s.base}/inboxes/${inbox.id}/set_agent_bot`, { agent_bot: 'x' }), 422)),
      ).toEqual({
        agent_bot: 'invalid',
      });
    });
  });

  describe('avatar', () => {
    const form = (fields: Record<string, string>, file?: { data: Buffer; type: string; name: string }) => {
      const f = new FormData();
      for (const [k, v] of Object.entries(fields)) f.append(k, v);
      if (file) f.append('avatar', new Blob([file.data], { type: file.type }), file.name);
      return f;
    };

    it('creates an inbox from multipart/form-data with an avatar the avatar_url serves back', async () => {
      const body = form(
        {
          name: 'With avatar',
          'channel[type]': 'web_widget',
          'channel[website_url]': 'https://pics.example',
          enable_email_collect: 'false',
          working_hours: JSON.stringify([{ day_of_week: 6, open_hour: 10, close_hour: 12 }]),
        },
        { data: PNG, type: 'image/png', name: 'logo.png' },
      );
      const res = await s.admin.api.post(`${s.base}/inboxes/`, body);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        name: 'With avatar',
        channel_type: 'Channel::WebWidget',
        website_url: 'https://pics.example',
        enable_email_collect: false,
      });
      expect(res.body.working_hours[6]).toMatchObject({ open_hour: 10, close_hour: 12, closed_all_day: false });
      expect(res.body.avatar_url).toMatch(SIGNED_LINK);
      expect(await download(res.body.avatar_url)).toEqual(PNG);

      // Replaced on update (multipart too), removed by DELETE /avatar.
      const gif = Buffer.concat([Buffer.from('GIF89a'), PNG]);
      const updated = await s.admin.api.patch(
        `${s.base}/inboxes/${res.body.id}`,
        form({ greeting_enabled: 'true' }, { data: gif, type: 'image/gif', name: 'a.gif' }),
      );
      expect(updated.status).toBe(200);
      expect(updated.body.greeting_enabled).toBe(true);
      expect(updated.body.avatar_url).not.toBe(res.body.avatar_url);
      expect(await download(updated.body.avatar_url)).toEqual(gif);

      expectErrorBody(await s.agent.api.delete(`${s.base}/inboxes/${res.body.id}/avatar`), 403);
      expect((await s.admin.api.delete(`${s.base}/inboxes/${res.body.id}/avatar`)).status).toBe(200);
      expect((await s.admin.api.get(`${s.base}/inboxes/${res.body.id}`)).body.avatar_url).toBe('');
    });

    it('refuses avatars that are not images, and unknown object URLs', async () => {
      const res = await s.admin.api.post(
        `${s.base}/inboxes`,
        form({ name: 'Bad avatar', 'channel[type]': 'api' }, { data: Buffer.from('hello'), type: 'text/plain', name: 'a.txt' }),
      );
      expect(fieldsOf(expectErrorBody(res, 422))).toEqual({ avatar: 'invalid' });
      const notFile = await s.admin.api.post(`${s.base}/inboxes`, {
        name: 'x',
        avatar: 'http://example.com/a.png',
        channel: { type: 'api' },
      });
      expect(fieldsOf(expectErrorBody(notFile, 422))).toEqual({ avatar: 'invalid' });
      const big = await s.admin.api.post(
        `${s.base}/inboxes`,
        form({ name: 'Huge', 'channel[type]': 'api' }, { data: Buffer.alloc(5 * 1024 * 1024, 1), type: 'image/png', name: 'big.png' }),
      );
      expectErrorBody(big, 413);
      const noBoundary = await s.admin.api.post(`${s.base}/inboxes`, 'name=x', { 'content-type': 'multipart/form-data' });
      expectErrorBody(noBoundary, 400);
      const rt = await runtime();
      expectErrorBody(await client(rt.baseUrl).get('/avatars/not*valid'), 404);
      expectErrorBody(await client(rt.baseUrl).get(`/avatars/${Buffer.from('secrets/x').toString('base64url')}`), 404);
      expectErrorBody(await client(rt.baseUrl).get('/rails/active_storage/blobs/redirect/not*valid/x.png'), 404);
    });
  });
});
