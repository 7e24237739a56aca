import { beforeAll, describe, expect, it } from 'vitest';
import { hashToken, newToken } from '#shared/crypto/tokens.ts';
import { putSession } from '#shared/db/repositories/sessions.ts';
import { THROTTLES } from '#shared/domain/throttles.ts';
import { expectErrorBody, runtime, seedAccount, type SeededAccount } from '../../support/runtime.ts';
import { fromAddress, resetLinkOf, sessionClient, sessionHeadersOf } from './fixtures.ts';

const PASSWORD = 'Passw0rd!';

// The machine running the suite may be busy: these wait on scrypt and on the pipeline.
describe('sign-in (devise_token_auth headers)', { timeout: 120_000 }, () => {
  let s: SeededAccount;
  let other: SeededAccount;
  let baseUrl: string;
  let agentEmail: string;
  beforeAll(async () => {
    baseUrl = (await runtime()).baseUrl;
    s = await seedAccount();
    other = await seedAccount();
    agentEmail = (await s.agent.api.get('/api/v1/profile')).body.email;
  });

  it('signs in with email and password, answers the user and the session headers, which then authenticate', async () => {
    const app = fromAddress(baseUrl);
    const res = await app.post('/auth/sign_in', { email: agentEmail.toUpperCase(), password: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-token')).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(res.headers.get('token-type')).toBe('Bearer');
    expect(res.headers.get('client')).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(res.headers.get('uid')).toBe(agentEmail);
    const expiry = Number(res.headers.get('expiry'));
    expect(expiry - Date.now() / 1000).toBeGreaterThan(59 * 24 * 3600);
    expect(res.body.data).toMatchObject({
      id: s.agent.id,
      email: agentEmail,
      uid: agentEmail,
      provider: 'email',
      account_id: s.accountId,
      role: 'agent',
      pubsub_token: expect.any(String),
      access_token: s.agent.token,
      accounts: [expect.objectContaining({ id: s.accountId, role: 'agent' })],
    });

    const agent = sessionClient(baseUrl, sessionHeadersOf(res));
    expect((await agent.get(`${s.base}/conversations`)).status).toBe(200);
    expect((await agent.get('/api/v1/profile')).body.id).toBe(s.agent.id);
    // The session is the agent's: administrator routes 403, other accounts 404.
    expectErrorBody(await agent.post(`${s.base}/labels`, { title: 'x' }), 403);
    expectErrorBody(await agent.get(`${other.base}/conversations`), 404);

    const valid = await agent.get('/auth/validate_token');
    expect(valid.status).toBe(200);
    expect(valid.body.payload.success).toBe(true);
    expect(valid.body.payload.data).toMatchObject({ id: s.agent.id, email: agentEmail, created_at: expect.any(Number) });

    // Each sign-in is a client of its own; signing one out leaves the other.
    const second = sessionClient(baseUrl, sessionHeadersOf(await app.post('/auth/sign_in', { email: agentEmail, password: PASSWORD })));
    const out = await agent.delete('/auth/sign_out');
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ success: true });
    expect(expectErrorBody(await agent.get(`${s.base}/conversations`), 401).errors[0]!.code).toBe('unauthorized');
    expectErrorBody(await agent.get('/api/v1/profile'), 401);
    expectErrorBody(await agent.get('/auth/validate_token'), 401);
    expectErrorBody(await agent.delete('/auth/sign_out'), 404);
    expect((await second.get(`${s.base}/conversations`)).status).toBe(200);
  });

  it('a session needs all three headers to match; api_access_token wins when both are sent', async () => {
    const app = fromAddress(baseUrl);
    const h = sessionHeadersOf(await app.post('/auth/sign_in', { email: agentEmail, password: PASSWORD }));
    for (const bad of [
      { ...h, client: 'other-client' },
      { ...h, uid: 'someone@example.com' },
      { ...h, 'access-token': newToken() },
    ]) {
      expectErrorBody(await sessionClient(baseUrl, bad).get(`${s.base}/conversations`), 401);
    }
    const { uid: _uid, ...twoOfThree } = h;
    expectErrorBody(await fromAddress(baseUrl).get(`${s.base}/conversations`, twoOfThree), 401);
    // A wrong api_access_token is not rescued by a valid session (Chatwoot reads the session only without one).
    expectErrorBody(await sessionClient(baseUrl, h).get(`${s.base}/conversations`, { api_access_token: 'nope' }), 401);
    expect((await sessionClient(baseUrl, h).get(`${s.base}/conversations`, { api_access_token: s.admin.token })).status).toBe(200);
  });

  it('an expired session answers 401', async () => {
    const token = newToken();
    const t = Math.floor(Date.now() / 1000);
    await putSession({
      token_hash: hashToken(token),
      user_id: s.agent.id,
      client: 'c-expired',
      uid: agentEmail,
      expiry: t - 1,
      created_at: t - 100,
    });
    const headers = { 'access-token': token, client: 'c-expired', uid: agentEmail };
    expectErrorBody(await sessionClient(baseUrl, headers).get(`${s.base}/conversations`), 401);
    expectErrorBody(await sessionClient(baseUrl, headers).get('/auth/validate_token'), 401);
    // The same item with a future expiry works: the expiry is what refused it.
    const live = newToken();
    await putSession({
      token_hash: hashToken(live),
      user_id: s.agent.id,
      client: 'c-live',
      uid: agentEmail,
      expiry: t + 60,
      created_at: t,
    });
    expect(
      (await sessionClient(baseUrl, { 'access-token': live, client: 'c-live', uid: agentEmail }).get(`${s.base}/conversations`)).status,
    ).toBe(200);
  });

  it('wrong password and unknown email answer the same 401 and write no session', async () => {
    const app = fromAddress(baseUrl);
    const wrong = await app.post('/auth/sign_in', { email: agentEmail, password: 'Wr0ng-password!' });
    const unknown = await app.post('/auth/sign_in', { email: `nobody-${Date.now()}@example.com`, password: PASSWORD });
    const empty = await app.post('/auth/sign_in', {});
    for (const r of [wrong, unknown, empty]) {
      expect(expectErrorBody(r, 401)).toEqual({
        description: 'Invalid login credentials. Please try again.',
        errors: [{ field: '', message: 'Invalid login credentials. Please try again.', code: 'unauthorized' }],
      });
      expect(r.headers.get('access-token')).toBeNull();
    }
    expect(wrong.text).toBe(unknown.text);
  });

  it('throttles failed sign-ins per email (429 with Retry-After), counting failures only', async () => {
    const fresh = await seedAccount();
    const email = (await fresh.agent.api.get('/api/v1/profile')).body.email;
    // Successes do not count.
    for (let i = 0; i < 3; i++) expect((await fromAddress(baseUrl).post('/auth/sign_in', { email, password: PASSWORD })).status).toBe(200);
    // Each failure from a different address, so only the email's window fills.
    for (let i = 0; i < THROTTLES.signInEmail.max; i++) {
      expectErrorBody(await fromAddress(baseUrl).post('/auth/sign_in', { email, password: 'Wr0ng-password!' }), 401);
    }
    const limited = await fromAddress(baseUrl).post('/auth/sign_in', { email, password: PASSWORD });
    expect(expectErrorBody(limited, 429).errors[0]!.code).toBe('rate_limited');
    const retry = Number(limited.headers.get('retry-after'));
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(THROTTLES.signInEmail.windowSeconds);
    // Another user is not affected.
    const otherEmail = (await fresh.admin.api.get('/api/v1/profile')).body.email;
    expect((await fromAddress(baseUrl).post('/auth/sign_in', { email: otherEmail, password: PASSWORD })).status).toBe(200);
  });

  it('throttles failed sign-ins per source address', async () => {
    const app = fromAddress(baseUrl);
    for (let i = 0; i < THROTTLES.signInAddress.max; i++) {
      expectErrorBody(await app.post('/auth/sign_in', { email: `guess-${i}-${Date.now()}@example.com`, password: 'x' }), 401);
    }
    const limited = await app.post('/auth/sign_in', { email: agentEmail, password: PASSWORD });
    expectErrorBody(limited, 429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // The same email from another address still signs in.
    expect((await fromAddress(baseUrl).post('/auth/sign_in', { email: agentEmail, password: PASSWORD })).status).toBe(200);
  });

  it('platform SSO: a one-time, short-lived login link that signs the user in', async () => {
    const link = await s.platform.get(`/platform/api/v1/users/${s.agent.id}/login`);
    expect(link.status).toBe(200);
    const url = new URL(link.body.url);
    expect(url.pathname).toBe('/app/login');
    expect(url.searchParams.get('email')).toBe(agentEmail);
    const ssoToken = url.searchParams.get('sso_auth_token')!;
    expect(ssoToken).toMatch(/^[A-Za-z0-9_-]{32}$/);

    // The dashboard's login page posts the two query values to sign_in.
    const app = fromAddress(baseUrl);
    const signedIn = await app.post('/auth/sign_in', { email: agentEmail, sso_auth_token: ssoToken });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.data.id).toBe(s.agent.id);
    expect((await sessionClient(baseUrl, sessionHeadersOf(signedIn)).get(`${s.base}/conversations`)).status).toBe(200);
    // One time only; a token for another email does nothing.
    expectErrorBody(await app.post('/auth/sign_in', { email: agentEmail, sso_auth_token: ssoToken }), 401);
    const second = new URL((await s.platform.get(`/platform/api/v1/users/${s.agent.id}/login`)).body.url).searchParams.get(
      'sso_auth_token',
    );
    expectErrorBody(await app.post('/auth/sign_in', { email: 'someone@example.com', sso_auth_token: second }), 401);
    // Expired links are refused.
    const { putOneTimeToken } = await import('#shared/db/repositories/sessions.ts');
    const keys = await import('#shared/db/keys.ts');
    const stale = newToken();
    const t = Math.floor(Date.now() / 1000);
    await putOneTimeToken(keys.oneTimeToken('SSO', hashToken(stale)), 'sso_token', {
      user_id: s.agent.id,
      email: agentEmail,
      expires_at: t - 1,
      created_at: t - 400,
    });
    expectErrorBody(await fromAddress(baseUrl).post('/auth/sign_in', { email: agentEmail, sso_auth_token: stale }), 401);

    // Only the platform app that created the user; only platform tokens.
    expectErrorBody(await other.platform.get(`/platform/api/v1/users/${s.agent.id}/login`), 404);
    expectErrorBody(await s.admin.api.get(`/platform/api/v1/users/${s.agent.id}/login`), 401);
    expectErrorBody(await s.platform.get(`/platform/api/v1/users/999999999/login`), 404);
  });

  it('records a password reset request, answering alike for unknown emails; the mail request carries only the email', async () => {
    const known = await fromAddress(baseUrl).post('/auth/password', { email: agentEmail });
    const unknownEmail = `nobody-${Date.now()}@example.com`;
    const unknown = await fromAddress(baseUrl).post('/auth/password', { email: unknownEmail });
    expect(known.status).toBe(200);
    expect(known.body).toEqual({ message: expect.any(String) });
    expect(unknown.body).toEqual(known.body);
    const { streamChanges } = await import('../../support/stream.ts');
    for (const email of [agentEmail, unknownEmail]) {
      const [change] = await streamChanges((c) => c.type === 'mail' && c.newImage?.kind === 'password_reset' && c.newImage?.to === email);
      const { pk: _pk, sk: _sk, type: _type, ttl: _ttl, ...fields } = change!.newImage!;
      expect(Object.keys(fields).sort()).toEqual(['created_at', 'expires_at', 'id', 'kind', 'to']);
    }
    // The pipeline issued the known user's link (its hash, and a sealed copy for a retried dispatch).
    const link = await resetLinkOf(s.agent.id);
    expect(link.item).toMatchObject({
      token_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      sealed_token: expect.stringMatching(/^k[1-9]\d*\./),
    });
  });

  it('completes a reset with the emailed token (PUT /auth/password): new password, other sessions end, this client is signed in', async () => {
    const fresh = await seedAccount();
    const email = (await fresh.agent.api.get('/api/v1/profile')).body.email;
    const before = sessionClient(
      baseUrl,
      sessionHeadersOf(await fromAddress(baseUrl).post('/auth/sign_in', { email, password: PASSWORD })),
    );
    expect((await fromAddress(baseUrl).post('/auth/password', { email })).status).toBe(200);
    const { token } = await resetLinkOf(fresh.agent.id);
    const NEW = 'Res3t-Passw0rd!';

    const app = fromAddress(baseUrl);
    expect(
      expectErrorBody(await app.put('/auth/password', { reset_password_token: token, password: NEW, password_confirmation: 'x' }), 422)
        .errors[0]!.field,
    ).toBe('password_confirmation');
    const done = await app.put('/auth/password', { reset_password_token: token, password: NEW, password_confirmation: NEW });
    expect(done.status).toBe(200);
    expect(done.body.data.id).toBe(fresh.agent.id);
    expect((await sessionClient(baseUrl, sessionHeadersOf(done)).get(`${fresh.base}/conversations`)).status).toBe(200);
    expectErrorBody(await before.get(`${fresh.base}/conversations`), 401);
    expectErrorBody(await fromAddress(baseUrl).post('/auth/sign_in', { email, password: PASSWORD }), 401);
    expect((await fromAddress(baseUrl).post('/auth/sign_in', { email, password: NEW })).status).toBe(200);
    // The token works once.
    expect(
      expectErrorBody(await app.put('/auth/password', { reset_password_token: token, password: NEW, password_confirmation: NEW }), 422)
        .errors[0]!.field,
    ).toBe('reset_password_token');
  });
});
