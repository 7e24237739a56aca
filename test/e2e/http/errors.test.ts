import { beforeAll, describe, expect, it } from 'vitest';
import { client, expectErrorBody, runtime, seedAccount, type SeededAccount } from '../../support/runtime.ts';

// The cross-cutting decisions on real routes (docs/decisions.md#error-body, #status-codes, #credentials):
// error body, status codes, auth, roles.

describe('errors and access on every interface', () => {
  let base: string;
  let s: SeededAccount;
  let other: SeededAccount;
  beforeAll(async () => {
    base = (await runtime()).baseUrl;
    s = await seedAccount();
    other = await seedAccount();
  });

  it('answers unknown routes and methods with 404 and the error body', async () => {
    const anon = client(base);
    for (const res of [
      await anon.get('/nope'),
      await anon.get('/api/v1/accounts/1/does_not_exist'),
      await anon.request('DELETE', '/platform/api/v1/agent_bots'),
      await anon.get('/public/api/v1/nothing-here'),
    ]) {
      const body = expectErrorBody(res, 404);
      expect(body.errors[0].code).toBe('not_found');
    }
  });

  it('answers malformed JSON with 400', async () => {
    const res = await s.platform.request('POST', '/platform/api/v1/accounts', '{"name": "x",', { 'content-type': 'application/json' });
    const body = expectErrorBody(res, 400);
    expect(body.errors[0].code).toBe('malformed');
  });

  it('answers bodies that are not objects with 400', async () => {
    for (const raw of ['[1,2]', '"text"', '42', 'null']) {
      const res = await s.platform.request('POST', '/platform/api/v1/accounts', raw, { 'content-type': 'application/json' });
      expect(expectErrorBody(res, 400).errors[0].code).toBe('not_an_object');
    }
  });

  it('answers oversize bodies with 413', async () => {
    const big = JSON.stringify({ name: 'x', custom_attributes: { blob: 'a'.repeat(1024 * 1024 + 10) } });
    const res = await s.platform.request('POST', '/platform/api/v1/accounts', big, { 'content-type': 'application/json' });
    expect(expectErrorBody(res, 413).errors[0].code).toBe('too_large');
  });

  it('answers unsupported media types with 415', async () => {
    const res = await s.platform.request('POST', '/platform/api/v1/accounts', '<a/>', { 'content-type': 'application/xml' });
    expectErrorBody(res, 415);
  });

  it('accepts form-encoded bodies with Rails root keys', async () => {
    const res = await s.platform.request(
      'POST',
      '/platform/api/v1/accounts',
      'account[name]=Formed&account[custom_attributes][tier]=gold',
      {
        'content-type': 'application/x-www-form-urlencoded',
      },
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'Formed' });
  });

  it('answers a missing or unknown token with 401 on all interfaces', async () => {
    const anon = client(base);
    const bogus = client(base, 'x'.repeat(32));
    for (const path of [`${s.base}`, '/api/v1/profile', '/platform/api/v1/accounts']) {
      expect(expectErrorBody(await anon.get(path), 401).errors[0].code).toBe('unauthorized');
      expectErrorBody(await bogus.get(path), 401);
    }
    // A platform token is not an account-interface credential.
    expectErrorBody(await s.platform.get(s.base), 401);
  });

  it('lets members read the account, and refuses agents on administrator routes with 403', async () => {
    const shown = await s.agent.api.get(s.base);
    expect(shown.status).toBe(200);
    expect(shown.body.id).toBe(s.accountId);
    const denied = expectErrorBody(await s.agent.api.patch(s.base, { name: 'Agent was here' }), 403);
    expect(denied.errors[0].code).toBe('forbidden');
    const ok = await s.admin.api.patch(s.base, { name: 'Renamed', support_email: 'Hi@Example.com' });
    expect(ok.body).toMatchObject({ name: 'Renamed', support_email: 'hi@example.com' });
    const bad = expectErrorBody(await s.admin.api.patch(s.base, { locale: 'klingon' }), 422);
    expect(bad.errors).toEqual([{ field: 'locale', message: expect.any(String), code: 'invalid' }]);
  });

  it('answers another account’s id with 404, never revealing it', async () => {
    for (const res of [await s.admin.api.get(other.base), await s.admin.api.patch(other.base, { name: 'x' })]) {
      const body = expectErrorBody(res, 404);
      expect(JSON.stringify(body)).not.toContain(`${String(other.accountId)}"`);
    }
    expectErrorBody(await s.admin.api.get('/api/v1/accounts/999999999'), 404);
    expectErrorBody(await s.admin.api.get('/api/v1/accounts/abc'), 404);
  });

  it('refuses a suspended account on the account interface', async () => {
    const t = await seedAccount();
    await t.platform.patch(`/platform/api/v1/accounts/${t.accountId}`, { status: 'suspended' });
    const res = expectErrorBody(await t.admin.api.get(t.base), 403);
    expect(res.errors[0].code).toBe('account_suspended');
    await t.platform.patch(`/platform/api/v1/accounts/${t.accountId}`, { status: 'active' });
    expect((await t.admin.api.get(t.base)).status).toBe(200);
  });

  it('reaches the same route with a trailing slash', async () => {
    const res = await s.admin.api.get(`${s.base}/`);
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(s.accountId);
  });

  it('answers GET /health', async () => {
    const res = await client(base).get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'ok',
      dependencies: { table: 'ok', token_key: 'ok', events_queue: 'ok', deliveries_queue: 'ok' },
    });
  });
});
