import { beforeAll, describe, expect, it } from 'vitest';
import { client, expectErrorBody, newPlatformApp, runtime, unique } from '../../support/runtime.ts';

const P = '/platform/api/v1';

describe('platform users and account users (contract endpoint 11)', () => {
  let app: Awaited<ReturnType<typeof newPlatformApp>>;
  let other: Awaited<ReturnType<typeof newPlatformApp>>;
  beforeAll(async () => {
    app = await newPlatformApp();
    other = await newPlatformApp();
  });

  const newUser = (api = app.api, extra: Record<string, unknown> = {}) =>
    api.post(`${P}/users`, { name: 'Ann Agent', email: `${unique('ann')}@Example.com`, password: 'Passw0rd!', ...extra });

  it('creates a user with its access token, shows and updates it', async () => {
    const res = await newUser(app.api, { display_name: 'Ann', custom_attributes: { team: 'blue' } });
    expect(res.status).toBe(200);
    const u = res.body;
    expect(u).toMatchObject({
      name: 'Ann Agent',
      display_name: 'Ann',
      available_name: 'Ann',
      confirmed: true,
      provider: 'email',
      account_id: null,
      role: null,
      accounts: [],
      custom_attributes: { team: 'blue' },
      avatar_url: '',
    });
    expect(u.email).toBe(u.email.toLowerCase());
    expect(u.uid).toBe(u.email);
    expect(typeof u.access_token).toBe('string');
    expect(u.access_token.length).toBeGreaterThanOrEqual(22);
    expect(typeof u.pubsub_token).toBe('string');
    expect(u).not.toHaveProperty('password');
    expect(u).not.toHaveProperty('password_hash');
    expect(u).not.toHaveProperty('sealed_token');

    const show = await app.api.get(`${P}/users/${u.id}`);
    expect(show.body).toMatchObject({ id: u.id, email: u.email, access_token: u.access_token });

    const upd = await app.api.patch(`${P}/users/${u.id}`, { name: 'Ann B', custom_attributes: { shift: 'night' } });
    expect(upd.status).toBe(200);
    expect(upd.body).toMatchObject({ name: 'Ann B', custom_attributes: { team: 'blue', shift: 'night' } });

    const token = await app.api.post(`${P}/users/${u.id}/token`);
    expect(token.status).toBe(200);
    expect(token.body).toEqual({
      access_token: u.access_token,
      expiry: null,
      user: { id: u.id, name: 'Ann B', display_name: 'Ann', email: u.email, pubsub_token: u.pubsub_token },
    });
  });

  it('validates name, email and password', async () => {
    const res = await app.api.post(`${P}/users`, { email: 'bad', password: 'short' });
    const body = expectErrorBody(res, 422);
    expect(Object.fromEntries(body.errors.map((e) => [e.field, e.code]))).toEqual({
      name: 'required',
      email: 'invalid',
      password: 'too_short',
    });
    const weak = expectErrorBody(await newUser(app.api, { password: 'alllowercase1' }), 422);
    expect(weak.errors[0]).toMatchObject({ field: 'password', code: 'invalid' });
  });

  it('returns the same user for a repeated email of its own, and refuses another app’s email', async () => {
    const email = `${unique('dup')}@example.com`;
    const first = await app.api.post(`${P}/users`, { name: 'Dup', email, password: 'Passw0rd!' });
    const again = await app.api.post(`${P}/users`, { name: 'Other name', email: email.toUpperCase(), password: 'Passw0rd!' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: first.body.id, name: 'Dup' });
    const foreign = expectErrorBody(await other.api.post(`${P}/users`, { name: 'X', email, password: 'Passw0rd!' }), 422);
    expect(foreign.errors[0]).toMatchObject({ field: 'email', code: 'taken' });
    expect(JSON.stringify(foreign)).not.toContain(String(first.body.access_token));
  });

  it('refuses a duplicate email on update', async () => {
    const a = (await newUser()).body;
    const b = (await newUser()).body;
    const res = expectErrorBody(await app.api.patch(`${P}/users/${b.id}`, { email: a.email }), 422);
    expect(res.errors[0]).toMatchObject({ field: 'email', code: 'taken' });
    // The old address stays with b, and a new free one can be taken.
    expect((await app.api.get(`${P}/users/${b.id}`)).body.email).toBe(b.email);
    const fresh = `${unique('fresh')}@example.com`;
    expect((await app.api.patch(`${P}/users/${b.id}`, { email: fresh })).body.email).toBe(fresh);
    // b's previous email is free again.
    expect((await app.api.patch(`${P}/users/${a.id}`, { email: b.email })).status).toBe(200);
  });

  it('links users to accounts (upsert), lists them (contract endpoint 11) and removes them', async () => {
    const account = (await app.api.post(`${P}/accounts`, { name: 'Linked' })).body;
    const u = (await newUser()).body;
    const link = await app.api.post(`${P}/accounts/${account.id}/account_users`, { user_id: u.id, role: 'administrator' });
    expect(link.status).toBe(200);
    expect(link.body).toMatchObject({
      account_id: account.id,
      user_id: u.id,
      role: 'administrator',
      inviter_id: null,
      availability: 'offline',
      auto_offline: true,
    });
    expect(Number.isInteger(link.body.id)).toBe(true);

    const again = await app.api.post(`${P}/accounts/${account.id}/account_users`, { user_id: u.id, role: 'agent' });
    expect(again.body).toMatchObject({ id: link.body.id, role: 'agent' });

    const list = await app.api.get(`${P}/accounts/${account.id}/account_users`);
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    for (const row of list.body) {
      expect(typeof row.account_id).toBe('number');
      expect(typeof row.user_id).toBe('number');
      expect(typeof row.role).toBe('string');
    }
    expect(list.body[0]).toMatchObject({ account_id: account.id, user_id: u.id, role: 'agent' });

    const shown = await app.api.get(`${P}/users/${u.id}`);
    expect(shown.body).toMatchObject({ account_id: account.id, role: 'agent' });
    expect(shown.body.accounts).toEqual([expect.objectContaining({ id: account.id, name: 'Linked', role: 'agent', active_at: null })]);

    const bad = expectErrorBody(await app.api.post(`${P}/accounts/${account.id}/account_users`, { user_id: u.id, role: 'owner' }), 422);
    expect(bad.errors[0]).toMatchObject({ field: 'role', code: 'invalid' });

    const del = await app.api.delete(`${P}/accounts/${account.id}/account_users`, { user_id: u.id });
    expect(del.status).toBe(200);
    expect((await app.api.get(`${P}/accounts/${account.id}/account_users`)).body).toEqual([]);
    // Removing again is not an error.
    expect((await app.api.delete(`${P}/accounts/${account.id}/account_users`, { user_id: u.id })).status).toBe(200);
  });

  it('never lets an app read, change or link another app’s users', async () => {
    const theirs = (await newUser(other.api)).body;
    const account = (await app.api.post(`${P}/accounts`, { name: 'Mine' })).body;
    for (const res of [
      await app.api.get(`${P}/users/${theirs.id}`),
      await app.api.patch(`${P}/users/${theirs.id}`, { name: 'Hijack' }),
      await app.api.delete(`${P}/users/${theirs.id}`),
      await app.api.post(`${P}/users/${theirs.id}/token`),
    ]) {
      const body = expectErrorBody(res, 404);
      expect(JSON.stringify(body)).not.toContain(theirs.access_token);
    }
    const link = expectErrorBody(await app.api.post(`${P}/accounts/${account.id}/account_users`, { user_id: theirs.id }), 422);
    expect(link.errors[0]).toMatchObject({ field: 'user_id' });
    expect((await other.api.get(`${P}/users/${theirs.id}`)).body.name).toBe('Ann Agent');
  });

  it('deletes a user, its token and its memberships', async () => {
    const rt = await runtime();
    const account = (await app.api.post(`${P}/accounts`, { name: 'Del' })).body;
    const u = (await newUser()).body;
    await app.api.post(`${P}/accounts/${account.id}/account_users`, { user_id: u.id, role: 'agent' });
    expect((await client(rt.baseUrl, u.access_token).get('/api/v1/profile')).status).toBe(200);
    const del = await app.api.delete(`${P}/users/${u.id}`);
    expect(del.status).toBe(200);
    expectErrorBody(await app.api.get(`${P}/users/${u.id}`), 404);
    expectErrorBody(await client(rt.baseUrl, u.access_token).get('/api/v1/profile'), 401);
    expect((await app.api.get(`${P}/accounts/${account.id}/account_users`)).body).toEqual([]);
    // The email is free again.
    expect((await app.api.post(`${P}/users`, { name: 'Again', email: u.email, password: 'Passw0rd!' })).status).toBe(200);
  });
});
