import { describe, expect, it } from 'vitest';
import { client, expectErrorBody, newPlatformApp, runtime, unique } from '../../support/runtime.ts';

const P = '/platform/api/v1';

describe('the foundation journey', () => {
  it('account → user with token → administrator link → profile; suspension refuses the account', async () => {
    const rt = await runtime();
    const app = await newPlatformApp();
    const account = await app.api.post(`${P}/accounts`, { name: 'Journey Inc' });
    expect(account.status).toBe(200);
    expect(account.body).toMatchObject({ id: expect.any(Number), name: 'Journey Inc' });

    const email = `${unique('boss')}@journey.example`;
    const user = await app.api.post(`${P}/users`, { name: 'Boss', email, password: 'Passw0rd!' });
    expect(user.status).toBe(200);
    const token: string = user.body.access_token;

    const link = await app.api.post(`${P}/accounts/${account.body.id}/account_users`, { user_id: user.body.id, role: 'administrator' });
    expect(link.body).toMatchObject({ account_id: account.body.id, user_id: user.body.id, role: 'administrator' });

    const me = client(rt.baseUrl, token);
    const profile = await me.get('/api/v1/profile');
    expect(profile.status).toBe(200);
    expect(profile.body).toMatchObject({
      id: user.body.id,
      email,
      name: 'Boss',
      access_token: token,
      account_id: account.body.id,
      role: 'administrator',
      accounts: [expect.objectContaining({ id: account.body.id, name: 'Journey Inc', role: 'administrator', status: 'active' })],
    });

    // The same token works as `Authorization: Bearer` and with the dash header spelling.
    expect((await client(rt.baseUrl).get('/api/v1/profile', { authorization: `Bearer ${token}` })).body.id).toBe(user.body.id);
    expect((await client(rt.baseUrl).get('/api/v1/profile', { 'Api-Access-Token': token })).body.id).toBe(user.body.id);

    // A platform token is not a user credential, and a user token is not a platform credential.
    expectErrorBody(await app.api.get('/api/v1/profile'), 401);
    expectErrorBody(await me.get(`${P}/accounts`), 401);

    // Another platform app can neither read nor change any of it.
    const intruder = await newPlatformApp();
    for (const res of [
      await intruder.api.get(`${P}/accounts/${account.body.id}`),
      await intruder.api.get(`${P}/accounts/${account.body.id}/account_users`),
      await intruder.api.post(`${P}/accounts/${account.body.id}/account_users`, { user_id: user.body.id, role: 'agent' }),
      await intruder.api.delete(`${P}/accounts/${account.body.id}/account_users`, { user_id: user.body.id }),
      await intruder.api.get(`${P}/users/${user.body.id}`),
      await intruder.api.patch(`${P}/users/${user.body.id}`, { name: 'pwned' }),
      await intruder.api.post(`${P}/users/${user.body.id}/token`),
      await intruder.api.delete(`${P}/users/${user.body.id}`),
      await intruder.api.delete(`${P}/accounts/${account.body.id}`),
    ]) {
      const body = expectErrorBody(res, 404);
      expect(JSON.stringify(body)).not.toContain(token);
      expect(JSON.stringify(body)).not.toContain('Journey');
    }
    expect((await app.api.get(`${P}/users/${user.body.id}`)).body.name).toBe('Boss');
    expect((await app.api.get(`${P}/accounts/${account.body.id}/account_users`)).body).toHaveLength(1);

    // Suspending the account refuses it on the account interface; the profile still answers.
    await app.api.patch(`${P}/accounts/${account.body.id}`, { status: 'suspended' });
    expect((await me.get('/api/v1/profile')).body.accounts[0].status).toBe('suspended');
  });
});

describe('the stream', () => {
  it('carries account changes with their type and images', async () => {
    const { streamChanges } = await import('../../support/stream.ts');
    const app = await newPlatformApp();
    const account = (await app.api.post(`${P}/accounts`, { name: 'Streamed' })).body;
    await app.api.patch(`${P}/accounts/${account.id}`, { name: 'Streamed 2' });
    const changes = await streamChanges((c) => c.type === 'account' && c.newImage?.id === account.id);
    expect(changes.map((c) => c.action)).toEqual(['INSERT', 'MODIFY']);
    expect(changes[1].oldImage?.name).toBe('Streamed');
    expect(changes[1].newImage?.name).toBe('Streamed 2');
    expect(changes[1].newImage?.custom_attributes).toEqual({});
    expect(new Set(changes.map((c) => c.id)).size).toBe(2);
    // Bookkeeping items are on the stream too; the forwarder keeps them off the events queue
    // (test/infra/stack.test.ts checks its filter).
    expect((await streamChanges((c) => c.type === 'token')).length).toBeGreaterThan(0);
  });
});
