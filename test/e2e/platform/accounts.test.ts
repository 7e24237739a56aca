import { beforeAll, describe, expect, it } from 'vitest';
import { client, expectErrorBody, newPlatformApp, runtime } from '../../support/runtime.ts';

const P = '/platform/api/v1';

describe('platform accounts (contract endpoint 10)', () => {
  let app: Awaited<ReturnType<typeof newPlatformApp>>;
  let other: Awaited<ReturnType<typeof newPlatformApp>>;
  beforeAll(async () => {
    app = await newPlatformApp();
    other = await newPlatformApp();
  });

  it('creates an account with every field and returns it', async () => {
    const res = await app.api.post(`${P}/accounts`, {
      name: 'Acme Support',
      locale: 'pt_BR',
      domain: 'acme.example',
      support_email: 'Help@Acme.example',
      status: 'active',
      limits: { inboxes: 5, agents: 10 },
      custom_attributes: { plan: 'pro' },
      features: { help_center: true, macros: false },
    });
    expect(res.status).toBe(200);
    const a = res.body;
    expect(a).toMatchObject({
      name: 'Acme Support',
      locale: 'pt_BR',
      domain: 'acme.example',
      support_email: 'help@acme.example',
      status: 'active',
      limits: { inboxes: 5, agents: 10 },
      custom_attributes: { plan: 'pro' },
    });
    expect(Number.isInteger(a.id)).toBe(true);
    expect(a.features.help_center).toBe(true);
    expect(a.features).not.toHaveProperty('macros');
    expect(Object.values(a.features).every((v) => v === true)).toBe(true);
  });

  it('defaults locale and status, and accepts the Rails root key', async () => {
    const res = await app.api.post(`${P}/accounts`, { account: { name: 'Wrapped' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'Wrapped', locale: 'en', status: 'active', limits: {}, custom_attributes: {} });
  });

  it('refuses invalid fields with one 422 entry per field', async () => {
    const res = await app.api.post(`${P}/accounts`, {
      locale: 'xx',
      status: 'frozen',
      support_email: 'nope',
      limits: { widgets: 3 },
      domain: 'd'.repeat(101),
    });
    const body = expectErrorBody(res, 422);
    const byField = Object.fromEntries(body.errors.map((e) => [e.field, e.code]));
    expect(byField).toEqual({
      name: 'required',
      locale: 'invalid',
      status: 'invalid',
      support_email: 'invalid',
      limits: 'invalid',
      domain: 'too_long',
    });
  });

  it('lists, shows, updates and deletes only its own accounts', async () => {
    const mine = (await app.api.post(`${P}/accounts`, { name: 'Mine' })).body;
    const theirs = (await other.api.post(`${P}/accounts`, { name: 'Theirs' })).body;

    const list = await app.api.get(`${P}/accounts`);
    expect(list.status).toBe(200);
    const ids = list.body.map((a: { id: number }) => a.id);
    expect(ids).toContain(mine.id);
    expect(ids).not.toContain(theirs.id);

    const show = await app.api.get(`${P}/accounts/${mine.id}`);
    expect(show.body).toMatchObject({ id: mine.id, name: 'Mine' });

    for (const res of [
      await app.api.get(`${P}/accounts/${theirs.id}`),
      await app.api.patch(`${P}/accounts/${theirs.id}`, { name: 'Hijacked' }),
      await app.api.delete(`${P}/accounts/${theirs.id}`),
      await app.api.get(`${P}/accounts/${theirs.id}/account_users`),
    ]) {
      const body = expectErrorBody(res, 404);
      expect(JSON.stringify(body)).not.toContain('Theirs');
    }
    expect((await other.api.get(`${P}/accounts/${theirs.id}`)).body.name).toBe('Theirs');

    const upd = await app.api.patch(`${P}/accounts/${mine.id}`, {
      name: 'Mine 2',
      status: 'suspended',
      custom_attributes: { b: 2 },
      features: { macros: true },
    });
    expect(upd.status).toBe(200);
    expect(upd.body).toMatchObject({ id: mine.id, name: 'Mine 2', status: 'suspended', custom_attributes: { b: 2 } });
    expect(upd.body.features.macros).toBe(true);
    const put = await app.api.put(`${P}/accounts/${mine.id}`, { name: 'Mine 3' });
    expect(put.body).toMatchObject({ name: 'Mine 3', status: 'suspended' });

    const del = await app.api.delete(`${P}/accounts/${mine.id}`);
    expect(del.status).toBe(200);
    expect(del.text).toBe('');
    expectErrorBody(await app.api.get(`${P}/accounts/${mine.id}`), 404);
    expect((await app.api.get(`${P}/accounts`)).body.map((a: { id: number }) => a.id)).not.toContain(mine.id);
  });

  it('answers unknown and malformed ids with 404', async () => {
    expectErrorBody(await app.api.get(`${P}/accounts/999999999`), 404);
    expectErrorBody(await app.api.get(`${P}/accounts/abc`), 404);
  });

  it('refuses requests without a platform token', async () => {
    const rt = await runtime();
    const anon = client(rt.baseUrl);
    expectErrorBody(await anon.get(`${P}/accounts`), 401);
    expectErrorBody(await client(rt.baseUrl, 'not-a-token').get(`${P}/accounts`), 401);
  });
});
