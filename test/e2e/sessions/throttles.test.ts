import { beforeAll, describe, expect, it } from 'vitest';
import { hashToken, resetToken } from '#shared/crypto/tokens.ts';
import { getItem } from '#shared/db/repositories/common.ts';
import * as keys from '#shared/db/keys.ts';
import { putPasswordReset } from '#shared/db/repositories/sessions.ts';
import { composeMail } from '#shared/domain/mail/compose.ts';
import type { QueuedMail } from '#shared/model/mail.ts';
import { openMail } from '#shared/domain/mail/sealed.ts';
import { THROTTLES, type Throttle } from '#shared/domain/throttles.ts';
import { decodeQueueBody, encodeQueueBody } from '#shared/codec/queue-text.ts';
import { expectErrorBody, runtime, seedAccount, unique, type Res, type SeededAccount } from '../../support/runtime.ts';
import { fromAddress, resetLinkOf } from './fixtures.ts';

// What an attacker against the sign-in and password-reset routes sees: throttles that hold under parallel
// requests (each request's verdict comes from its own increment), reset links that die when a newer one is
// issued or one is used, reset answers that do not tell known emails from unknown ones, and reset links
// that never travel in clear on the mail queue.

const PASSWORD = 'Passw0rd!';
const NEW_PASSWORD = 'N3w-Passw0rd!';

/** Waits, if needed, so that the next few seconds stay inside one window of the throttle. */
async function awayFromWindowEdge(t: Throttle, marginSeconds = 15) {
  const left = t.windowSeconds - (Math.floor(Date.now() / 1000) % t.windowSeconds);
  if (left < marginSeconds) await new Promise((r) => setTimeout(r, (left + 1) * 1000));
}

function expectThrottled(res: Res, t: Throttle) {
  const body = expectErrorBody(res, 429);
  expect(body.errors[0]!.code).toBe('rate_limited');
  const retry = Number(res.headers.get('retry-after'));
  expect(Number.isInteger(retry)).toBe(true);
  expect(retry).toBeGreaterThan(0);
  expect(retry).toBeLessThanOrEqual(t.windowSeconds);
}

const windowCount = async (t: Throttle, value: string) => {
  const now = Math.floor(Date.now() / 1000);
  const item = await getItem<{ n: number }>(keys.throttleWindow(t.scope, hashToken(value), now - (now % t.windowSeconds)), true);
  return item?.n ?? 0;
};

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

describe('throttles under parallel requests, and password reset links', { timeout: 180_000 }, () => {
  let baseUrl: string;
  let s: SeededAccount;
  beforeAll(async () => {
    baseUrl = (await runtime()).baseUrl;
    s = await seedAccount();
  });

  const emailOf = async (api: SeededAccount['agent']['api']) => (await api.get('/api/v1/profile')).body.email as string;
  /** A user of the seeded account's platform app, without any account (enough to request a reset). */
  const newUser = async () => {
    const email = `${unique('reset-')}@example.com`;
    const u = await s.platform.post('/platform/api/v1/users', { name: 'Reset Test', email, password: PASSWORD });
    expect(u.status).toBe(200);
    return { id: u.body.id as number, email };
  };

  it('30 parallel failed sign-ins for one email: at most 10 are evaluated (401), the rest are 429', async () => {
    const fresh = await seedAccount();
    const email = await emailOf(fresh.agent.api);
    await awayFromWindowEdge(THROTTLES.signInEmail);
    // Each guess from an address of its own, so only the email's window limits them.
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => fromAddress(baseUrl).post('/auth/sign_in', { email, password: 'Wr0ng-guess!' })),
    );
    const evaluated = answers.filter((r) => r.status === 401);
    const throttled = answers.filter((r) => r.status === 429);
    console.log(`sign-in, one email, 30 parallel: ${evaluated.length} evaluated (401), ${throttled.length} refused (429)`);
    expect(evaluated.length + throttled.length).toBe(30);
    expect(evaluated.length).toBeLessThanOrEqual(THROTTLES.signInEmail.max);
    for (const r of throttled) expectThrottled(r, THROTTLES.signInEmail);
    expect(await windowCount(THROTTLES.signInEmail, email)).toBe(evaluated.length);
    // The window is full: even the right password is refused now, from a fresh address.
    if (evaluated.length === THROTTLES.signInEmail.max) {
      expectThrottled(await fromAddress(baseUrl).post('/auth/sign_in', { email, password: PASSWORD }), THROTTLES.signInEmail);
    }
  });

  it('30 parallel failed sign-ins from one address: at most 5 are evaluated, the rest are 429', async () => {
    const app = fromAddress(baseUrl);
    await awayFromWindowEdge(THROTTLES.signInAddress);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        app.post('/auth/sign_in', { email: `guess-${i}-${unique()}@example.com`, password: 'Wr0ng-guess!' }),
      ),
    );
    const evaluated = answers.filter((r) => r.status === 401);
    const throttled = answers.filter((r) => r.status === 429);
    console.log(`sign-in, one address, 30 parallel: ${evaluated.length} evaluated (401), ${throttled.length} refused (429)`);
    expect(evaluated.length + throttled.length).toBe(30);
    expect(evaluated.length).toBeLessThanOrEqual(THROTTLES.signInAddress.max);
    for (const r of throttled) expectThrottled(r, THROTTLES.signInAddress);
    expect(await windowCount(THROTTLES.signInAddress, app.address)).toBe(evaluated.length);
  });

  it('a successful sign-in gives its slots back: only failures fill the windows', async () => {
    const fresh = await seedAccount();
    const email = await emailOf(fresh.agent.api);
    const app = fromAddress(baseUrl);
    await awayFromWindowEdge(THROTTLES.signInAddress);
    const ok = await Promise.all(Array.from({ length: 4 }, () => app.post('/auth/sign_in', { email, password: PASSWORD })));
    expect(ok.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(await windowCount(THROTTLES.signInAddress, app.address)).toBe(0);
    expect(await windowCount(THROTTLES.signInEmail, email)).toBe(0);
    // Email case and whitespace do not make another window (Chatwoot's key: lower case, no whitespace).
    expect((await app.post('/auth/sign_in', { email: ` ${email.toUpperCase()} `, password: 'Wr0ng-guess!' })).status).toBe(401);
    expect(await windowCount(THROTTLES.signInEmail, email)).toBe(1);
  });

  it('password reset: the 6th request for one email in the window is 429, from any address', async () => {
    const user = await newUser();
    await awayFromWindowEdge(THROTTLES.resetEmail);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        fromAddress(baseUrl).post('/auth/password', { email: i % 2 ? user.email.toUpperCase() : user.email }),
      ),
    );
    expect(answers.filter((r) => r.status === 200)).toHaveLength(THROTTLES.resetEmail.max);
    for (const r of answers.filter((r) => r.status !== 200)) expectThrottled(r, THROTTLES.resetEmail);
    expectThrottled(await fromAddress(baseUrl).post('/auth/password', { email: user.email }), THROTTLES.resetEmail);
  });

  it('password reset: the 6th request from one address in the window is 429, whatever the email', async () => {
    const app = fromAddress(baseUrl);
    await awayFromWindowEdge(THROTTLES.resetAddress);
    for (let i = 0; i < THROTTLES.resetAddress.max; i++) {
      expect((await app.post('/auth/password', { email: `nobody-${unique()}@example.com` })).status).toBe(200);
    }
    expectThrottled(await app.post('/auth/password', { email: `nobody-${unique()}@example.com` }), THROTTLES.resetAddress);
    // Another address is not affected.
    expect((await fromAddress(baseUrl).post('/auth/password', { email: `nobody-${unique()}@example.com` })).status).toBe(200);
  });

  it('reset links: an older link is dead once a newer one is issued, a used link is dead, and so is every older one', async () => {
    const user = await newUser();
    const reset = (token: string) =>
      fromAddress(baseUrl).put('/auth/password', {
        reset_password_token: token,
        password: NEW_PASSWORD,
        password_confirmation: NEW_PASSWORD,
      });
    const refused = async (token: string) => expect(expectErrorBody(await reset(token), 422).errors[0]!.field).toBe('reset_password_token');

    expect((await fromAddress(baseUrl).post('/auth/password', { email: user.email })).status).toBe(200);
    const first = await resetLinkOf(user.id);
    expect((await fromAddress(baseUrl).post('/auth/password', { email: user.email })).status).toBe(200);
    const second = await resetLinkOf(user.id, first.item.request_id);
    expect(second.token).not.toBe(first.token);

    await refused(first.token);
    const done = await reset(second.token);
    expect(done.status).toBe(200);
    expect(done.body.data.id).toBe(user.id);
    await refused(second.token);
    await refused(first.token);
    expect((await fromAddress(baseUrl).post('/auth/sign_in', { email: user.email, password: NEW_PASSWORD })).status).toBe(200);

    // A link issued after the use works; an expired one does not; nor does a forged token naming the user.
    expect((await fromAddress(baseUrl).post('/auth/password', { email: user.email })).status).toBe(200);
    const third = await resetLinkOf(user.id, second.item.request_id);
    const t = Math.floor(Date.now() / 1000);
    const stale = resetToken(user.id);
    await putPasswordReset({
      user_id: user.id,
      token_hash: hashToken(stale),
      request_id: unique(),
      requested_at: t,
      expires_at: t - 1,
      created_at: t - 7 * 3600,
    });
    await refused(stale);
    await refused(third.token); // the stale one replaced it
    await refused(resetToken(user.id));
    await refused('not-a-token');
  });

  it('a password change in the profile kills a pending reset link (as Devise clears it)', async () => {
    const fresh = await seedAccount();
    const email = await emailOf(fresh.agent.api);
    expect((await fromAddress(baseUrl).post('/auth/password', { email })).status).toBe(200);
    const { token } = await resetLinkOf(fresh.agent.id);
    const changed = await fresh.agent.api.put('/api/v1/profile', {
      profile: { current_password: PASSWORD, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD },
    });
    expect(changed.status).toBe(200);
    const res = await fromAddress(baseUrl).put('/auth/password', {
      reset_password_token: token,
      password: PASSWORD,
      password_confirmation: PASSWORD,
    });
    expect(expectErrorBody(res, 422).errors[0]!.field).toBe('reset_password_token');
  });

  it('the mail queue carries the reset mail sealed: no token, no link, no address in clear', async () => {
    const user = await newUser();
    expect((await fromAddress(baseUrl).post('/auth/password', { email: user.email })).status).toBe(200);
    const { token, item } = await resetLinkOf(user.id);
    // What the dispatcher puts on the mail queue for that request (a retried dispatch of the same request
    // issues the same link; SQS moves a message to the dead-letter queue unchanged).
    const queued = await composeMail({
      kind: 'password_reset',
      id: item.request_id,
      to: user.email,
      created_at: item.requested_at,
      expires_at: item.requested_at + 3 * 86400,
    });
    const body = encodeQueueBody(queued);
    for (const secret of [token, encodeURIComponent(token), user.email, 'reset_password_token', hashToken(token)])
      expect(body).not.toContain(secret);
    expect(decodeQueueBody(body)).toEqual({ id: item.request_id, kind: 'password_reset', sealed: expect.stringMatching(/^k[1-9]\d*\./) });
    // The mail function opens it: the mail to the user, with the link.
    const mail = await openMail(decodeQueueBody<QueuedMail>(body));
    expect(mail).toMatchObject({ id: item.request_id, kind: 'password_reset', to: user.email, subject: 'Reset password instructions' });
    expect(mail.text).toContain(`reset_password_token=${token}`);
  });

  it('reset answers take the same time whether the email exists (medians of 50 each, printed, not asserted)', async () => {
    // 10 users, 5 requests each (the per-email limit), each request from an address of its own.
    const users = await Promise.all(Array.from({ length: 10 }, () => newUser()));
    const known: number[] = [];
    const unknown: number[] = [];
    const timed = async (email: string, into: number[]) => {
      const app = fromAddress(baseUrl);
      const started = performance.now();
      const res = await app.post('/auth/password', { email });
      into.push(performance.now() - started);
      expect(res.status).toBe(200);
      return res.text;
    };
    for (let i = 0; i < 50; i++) {
      const a = await timed(users[i % 10]!.email, known);
      const b = await timed(`nobody-${unique()}@example.com`, unknown);
      expect(a).toBe(b);
    }
    console.log(
      `POST /auth/password, median of 50 each: known email ${median(known).toFixed(1)} ms, unknown email ${median(unknown).toFixed(1)} ms`,
    );
    expect(known).toHaveLength(50);
    expect(unknown).toHaveLength(50);
  });
});
