import { beforeAll, describe, expect, it } from 'vitest';
import { client, expectErrorBody, runtime, seedAccount, unique, type SeededAccount, fieldsOf } from '../../support/runtime.ts';

/** docs/contract.md#agent-bot: every field with its type. */
function expectBot(body: any, expected: Record<string, unknown>) {
  expect(body).toEqual({
    id: expect.any(Number),
    name: expect.any(String),
    description: null,
    thumbnail: expect.any(String),
    outgoing_url: null,
    bot_type: 'webhook',
    bot_config: {},
    account_id: expect.any(Number),
    access_token: expect.any(String),
    system_bot: false,
    ...expected,
  });
  expect(Number.isInteger(body.id)).toBe(true);
}

describe('account agent bots', () => {
  let s: SeededAccount;
  let other: SeededAccount;
  let base: string;
  let systemBot: any;
  beforeAll(async () => {
    base = (await runtime()).baseUrl;
    s = await seedAccount();
    other = await seedAccount();
    systemBot = (
      await s.platform.post('/platform/api/v1/agent_bots', { name: unique('System '), outgoing_url: 'https://system.example/hook' })
    ).body;
  });

  it("creates, lists (with system bots), shows, updates and deletes the account's bots", async () => {
    const created = await s.admin.api.post(`${s.base}/agent_bots`, {
      name: 'Triage',
      description: 'sorts things',
      outgoing_url: 'https://bot.example.com/hook',
      avatar_url: 'https://bot.example.com/a.png',
      bot_config: { lang: 'de' },
    });
    expect(created.status).toBe(200);
    expectBot(created.body, {
      name: 'Triage',
      description: 'sorts things',
      outgoing_url: 'https://bot.example.com/hook',
      thumbnail: 'https://bot.example.com/a.png',
      bot_config: { lang: 'de' },
      account_id: s.accountId,
    });
    const plain = await s.admin.api.post(`${s.base}/agent_bots`, { agent_bot: { name: 'Plain' } });
    expectBot(plain.body, { name: 'Plain', thumbnail: '', account_id: s.accountId });
    expect(plain.body.access_token).not.toBe(created.body.access_token);

    const theirs = (await other.admin.api.post(`${other.base}/agent_bots`, { name: 'Theirs' })).body;

    const list = await s.admin.api.get(`${s.base}/agent_bots`);
    expect(list.status).toBe(200);
    expect(Array.isArray(list.body)).toBe(true);
    const ids = list.body.map((b: { id: number }) => b.id);
    expect(ids).toEqual(expect.arrayContaining([created.body.id, plain.body.id, systemBot.id]));
    expect(ids).not.toContain(theirs.id);
    expect(list.body.find((b: { id: number }) => b.id === created.body.id)).toEqual(created.body);
    // A system bot: usable by every account, its URL and token stay with its owner.
    const sys = list.body.find((b: { id: number }) => b.id === systemBot.id);
    expect(sys).toEqual({
      id: systemBot.id,
      name: systemBot.name,
      description: null,
      thumbnail: '',
      bot_type: 'webhook',
      bot_config: {},
      account_id: null,
      system_bot: true,
    });

    expect((await s.admin.api.get(`${s.base}/agent_bots/${created.body.id}`)).body).toEqual(created.body);
    expect((await s.admin.api.get(`${s.base}/agent_bots/${systemBot.id}`)).body).toEqual(sys);

    const updated = await s.admin.api.patch(`${s.base}/agent_bots/${created.body.id}`, {
      name: 'Triage 2',
      outgoing_url: null,
      bot_config: '{"lang":"fr"}',
    });
    expect(updated.status).toBe(200);
    expectBot(updated.body, { ...created.body, name: 'Triage 2', outgoing_url: null, bot_config: { lang: 'fr' } });
    const put = await s.admin.api.put(`${s.base}/agent_bots/${created.body.id}`, { description: 'x' });
    expect(put.body).toMatchObject({ name: 'Triage 2', description: 'x', access_token: created.body.access_token });

    const noAvatar = await s.admin.api.delete(`${s.base}/agent_bots/${created.body.id}/avatar`);
    expect(noAvatar.status).toBe(200);
    expectBot(noAvatar.body, { ...put.body, thumbnail: '' });

    const gone = await s.admin.api.delete(`${s.base}/agent_bots/${plain.body.id}`);
    expect(gone.status).toBe(200);
    expect(gone.text).toBe('');
    expectErrorBody(await s.admin.api.get(`${s.base}/agent_bots/${plain.body.id}`), 404);
    // Its token is gone with it.
    expectErrorBody(await client(base, plain.body.access_token).get(`${s.base}/labels`), 401);
  });

  it('resets the access token: the new one works, the old one stops at once', async () => {
    const bot = (await s.admin.api.post(`${s.base}/agent_bots`, { name: 'Rotating' })).body;
    // A bot token is a valid credential that the allow-list keeps off other routes (403, not 401).
    expectErrorBody(await client(base, bot.access_token).get(`${s.base}/labels`), 403);

    const reset = await s.admin.api.post(`${s.base}/agent_bots/${bot.id}/reset_access_token`);
    expect(reset.status).toBe(200);
    expectBot(reset.body, { ...bot, access_token: expect.any(String) });
    expect(reset.body.access_token).not.toBe(bot.access_token);
    expect((await s.admin.api.get(`${s.base}/agent_bots/${bot.id}`)).body.access_token).toBe(reset.body.access_token);

    expectErrorBody(await client(base, bot.access_token).get(`${s.base}/labels`), 401);
    expectErrorBody(await client(base, reset.body.access_token).get(`${s.base}/labels`), 403);
  });

  it('lets agents read (without tokens) and keeps writes for administrators', async () => {
    const bot = (await s.admin.api.post(`${s.base}/agent_bots`, { name: 'Readable' })).body;
    const listed = (await s.agent.api.get(`${s.base}/agent_bots`)).body.find((b: { id: number }) => b.id === bot.id);
    const { access_token: _token, ...withoutToken } = bot;
    expect(listed).toEqual(withoutToken);
    expect((await s.agent.api.get(`${s.base}/agent_bots/${bot.id}`)).body).toEqual(withoutToken);
    for (const res of [
      await s.agent.api.post(`${s.base}/agent_bots`, { name: 'x' }),
      await s.agent.api.patch(`${s.base}/agent_bots/${bot.id}`, { name: 'x' }),
      await s.agent.api.delete(`${s.base}/agent_bots/${bot.id}`),
      await s.agent.api.delete(`${s.base}/agent_bots/${bot.id}/avatar`),
      await s.agent.api.post(`${s.base}/agent_bots/${bot.id}/reset_access_token`),
    ]) {
      expect(expectErrorBody(res, 403).errors[0].code).toBe('forbidden');
    }
  });

  it("answers 404 for other accounts' bots and for writes to system bots", async () => {
    const theirs = (await other.admin.api.post(`${other.base}/agent_bots`, { name: 'Theirs' })).body;
    for (const res of [
      await s.admin.api.get(`${s.base}/agent_bots/${theirs.id}`),
      await s.admin.api.patch(`${s.base}/agent_bots/${theirs.id}`, { name: 'x' }),
      await s.admin.api.delete(`${s.base}/agent_bots/${theirs.id}`),
      await s.admin.api.post(`${s.base}/agent_bots/${theirs.id}/reset_access_token`),
      await s.admin.api.patch(`${s.base}/agent_bots/${systemBot.id}`, { name: 'hijacked' }),
      await s.admin.api.delete(`${s.base}/agent_bots/${systemBot.id}`),
      await s.admin.api.delete(`${s.base}/agent_bots/${systemBot.id}/avatar`),
      await s.admin.api.post(`${s.base}/agent_bots/${systemBot.id}/reset_access_token`),
      await other.admin.api.get(`${s.base}/agent_bots`),
      await other.admin.api.post(`${s.base}/agent_bots`, { name: 'x' }),
      await s.admin.api.get(`${s.base}/agent_bots/999999999`),
    ]) {
      const body = expectErrorBody(res, 404);
      expect(JSON.stringify(body)).not.toContain(theirs.access_token);
    }
    // The system bot and the other account's bot are untouched.
    expect((await s.platform.get(`/platform/api/v1/agent_bots/${systemBot.id}`)).body).toMatchObject({
      name: systemBot.name,
      access_token: systemBot.access_token,
    });
    expect((await other.admin.api.get(`${other.base}/agent_bots/${theirs.id}`)).body).toEqual(theirs);
    expectErrorBody(await client(base).get(`${s.base}/agent_bots`), 401);
  });

  it('validates bots with 422 naming the fields', async () => {
    const res = expectErrorBody(
      await s.admin.api.post(`${s.base}/agent_bots`, { outgoing_url: 'ftp://x', bot_type: 'csml', bot_config: 'nope' }),
      422,
    );
    expect(fieldsOf(res)).toEqual({ name: 'required', outgoing_url: 'invalid', bot_type: 'invalid', bot_config: 'invalid' });
    const bot = (await s.admin.api.post(`${s.base}/agent_bots`, { name: 'Valid' })).body;
    expect(
      fieldsOf(expectErrorBody(await s.admin.api.patch(`${s.base}/agent_bots/${bot.id}`, { name: '', avatar_url: 'x' }), 422)),
    ).toEqual({
      name: 'required',
      avatar_url: 'invalid',
    });
  });

  it('detaches a deleted bot from the inboxes that used it, so their conversations start open again', async () => {
    const bot = (await s.admin.api.post(`${s.base}/agent_bots`, { name: unique('Gone bot ') })).body;
    const inbox = (await s.admin.api.post(`${s.base}/inboxes`, { name: unique('Bot inbox '), channel: { type: 'api' } })).body;
    await s.admin.api.post(`${s.base}/inboxes/${inbox.id}/set_agent_bot`, { agent_bot: bot.id });
    const contact = (await s.admin.api.post(`${s.base}/contacts`, { name: 'Cleo', email: `${unique('cleo')}@example.com` })).body.payload
      .contact;
    const before = await s.admin.api.post(`${s.base}/conversations`, { inbox_id: inbox.id, contact_id: contact.id });
    expect(before.body.status).toBe('pending');

    expect((await s.admin.api.delete(`${s.base}/agent_bots/${bot.id}`)).status).toBe(200);
    expect((await s.admin.api.get(`${s.base}/inboxes/${inbox.id}/agent_bot`)).body).toEqual({ agent_bot: {} });
    const after = await s.admin.api.post(`${s.base}/conversations`, { inbox_id: inbox.id, contact_id: contact.id });
    expect(after.body.status).toBe('open');
  });
});
