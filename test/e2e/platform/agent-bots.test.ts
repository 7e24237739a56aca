import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, newPlatformApp } from '../../support/runtime.ts';

const P = '/platform/api/v1';

describe('platform agent bots (contract endpoint 12)', () => {
  let app: Awaited<ReturnType<typeof newPlatformApp>>;
  let other: Awaited<ReturnType<typeof newPlatformApp>>;
  beforeAll(async () => {
    app = await newPlatformApp();
    other = await newPlatformApp();
  });

  it('creates account bots and system bots with their tokens, and lists only its own', async () => {
    const account = (await app.api.post(`${P}/accounts`, { name: 'Bots' })).body;
    const sys = await app.api.post(`${P}/agent_bots`, {
      name: 'Helper',
      description: 'answers FAQs',
      outgoing_url: 'https://bot.example/hook',
      avatar_url: 'https://bot.example/a.png',
      bot_config: { lang: 'en' },
    });
    expect(sys.status).toBe(200);
    expect(sys.body).toMatchObject({
      name: 'Helper',
      description: 'answers FAQs',
      outgoing_url: 'https://bot.example/hook',
      thumbnail: 'https://bot.example/a.png',
      bot_type: 'webhook',
      bot_config: { lang: 'en' },
      account_id: null,
      system_bot: true,
    });
    expect(typeof sys.body.id).toBe('number');
    expect(typeof sys.body.access_token).toBe('string');

    const acc = await app.api.post(`${P}/agent_bots`, { name: 'Acct bot', account_id: account.id });
    expect(acc.body).toMatchObject({ account_id: account.id, system_bot: false, outgoing_url: null, thumbnail: '', description: null });
    expect(acc.body.access_token).not.toBe(sys.body.access_token);

    const theirs = (await other.api.post(`${P}/agent_bots`, { name: 'Theirs' })).body;

    const list = await app.api.get(`${P}/agent_bots`);
    expect(list.status).toBe(200);
    const ids = list.body.map((b: { id: number }) => b.id);
    expect(ids).toEqual(expect.arrayContaining([sys.body.id, acc.body.id]));
    expect(ids).not.toContain(theirs.id);
    for (const b of list.body) {
      for (const [k, t] of Object.entries({
        id: 'number',
        name: 'string',
        access_token: 'string',
        system_bot: 'boolean',
        bot_type: 'string',
        thumbnail: 'string',
      })) {
        expect(typeof b[k], k).toBe(t);
      }
      expect(typeof b.bot_config).toBe('object');
    }

    const show = await app.api.get(`${P}/agent_bots/${sys.body.id}`);
    expect(show.body).toEqual(sys.body);

    const upd = await app.api.patch(`${P}/agent_bots/${sys.body.id}`, { name: 'Helper 2', outgoing_url: 'http://127.0.0.1:9/x' });
    expect(upd.body).toMatchObject({
      id: sys.body.id,
      name: 'Helper 2',
      outgoing_url: 'http://127.0.0.1:9/x',
      access_token: sys.body.access_token,
    });

    for (const res of [
      await app.api.get(`${P}/agent_bots/${theirs.id}`),
      await app.api.patch(`${P}/agent_bots/${theirs.id}`, { name: 'x' }),
      await app.api.delete(`${P}/agent_bots/${theirs.id}`),
    ]) {
      expect(JSON.stringify(expectErrorBody(res, 404))).not.toContain(theirs.access_token);
    }

    expect((await app.api.delete(`${P}/agent_bots/${acc.body.id}`)).status).toBe(200);
    expectErrorBody(await app.api.get(`${P}/agent_bots/${acc.body.id}`), 404);
  });

  it('validates bots and refuses foreign accounts', async () => {
    const theirAccount = (await other.api.post(`${P}/accounts`, { name: 'Other' })).body;
    const res = expectErrorBody(
      await app.api.post(`${P}/agent_bots`, { outgoing_url: 'ftp://x', bot_type: 'csml', account_id: theirAccount.id }),
      422,
    );
    const fields = Object.fromEntries(res.errors.map((e) => [e.field, e.code]));
    expect(fields).toMatchObject({ name: 'required', outgoing_url: 'invalid', bot_type: 'invalid' });
    const foreign = expectErrorBody(await app.api.post(`${P}/agent_bots`, { name: 'x', account_id: theirAccount.id }), 422);
    expect(foreign.errors[0]).toMatchObject({ field: 'account_id' });
  });
});
