import { hashPassword, hashToken, newToken, ownerToken, randomId, verifyPassword } from '#shared/crypto/tokens.ts';
import * as keys from '#shared/db/keys.ts';
import type { Key } from '#shared/db/keys.ts';
import { getUser, getUserIdByEmail } from '#shared/db/repositories/identity.ts';
import {
  deleteSession,
  getSession,
  getSessionAndAccount,
  listUserSessions,
  putOneTimeToken,
  putSession,
  takeOneTimeToken,
} from '#shared/db/repositories/sessions.ts';
import { ServiceError, invalidField, unprocessable } from '#shared/errors.ts';
import type { AccountRecord, TokenRecord, UserRecord } from '#shared/model/identity.ts';
import { now } from '#shared/model/time.ts';
import { config } from '#shared/config.ts';
import { permittedUser, profile, saveUser } from '../users/service.ts';
import type { SessionRecord } from '#shared/model/sessions.ts';
import type { PasswordReset, SignIn } from './schemas.ts';
import { addressScope, takeSlots, throttleEmail, THROTTLES } from '../throttles.ts';
import { takePasswordReset } from './reset.ts';

// Sign-in as devise_token_auth does it for Chatwoot (config/initializers/devise_token_auth.rb): a session per
// `client`, headers `access-token`, `client`, `uid` sent back on every request, tokens that do not change
// per request, a lifespan of two months, at most ten devices (the oldest is dropped), and every other
// session revoked when the password changes.

export const SESSION_LIFESPAN_SECONDS = 60 * 24 * 3600;
export const MAX_DEVICES = 10;
/** Chatwoot keeps SSO tokens five minutes. */
export const SSO_TOKEN_SECONDS = 5 * 60;

/** The three headers a signed-in client sends. */
export interface SessionCredentials {
  accessToken: string;
  client: string;
  uid: string;
}

const badCredentials = () =>
  new ServiceError('unauthorized', 'Invalid login credentials. Please try again.', [
    { field: '', message: 'Invalid login credentials. Please try again.', code: 'unauthorized' },
  ]);

const notSignedIn = () =>
  new ServiceError('unauthorized', 'You need to sign in or sign up before continuing.', [
    { field: '', message: 'You need to sign in or sign up before continuing.', code: 'unauthorized' },
  ]);

// Unknown emails and users without a password are checked against this hash (of a random password nobody
// kept), so every failed sign-in costs the same scrypt work and the same reads: the answer's timing does not
// tell them apart, not even on a container's first attempt.
const DUMMY_HASH = 'scrypt.zh0p6Vz9_C2VUPmbQF-HIw.aZwd9yLMIYh6hmIorEfTNGhdgw9wFirgXs6890tJDf0';

const live = (s: SessionRecord | undefined, c: SessionCredentials, at = now()) =>
  s !== undefined && s.client === c.client && s.uid === c.uid && s.expiry > at;

/** The live session these headers name, or undefined. */
export async function sessionOf(c: SessionCredentials): Promise<SessionRecord | undefined> {
  const s = await getSession(hashToken(c.accessToken));
  return live(s, c) ? s : undefined;
}

/**
 * The session's owner as a token owner, and the path's account (none for `undefined`), in one round trip
 * (auth); `extra` keys are read in the same BatchGet and answered in order.
 */
export async function sessionTokenAndAccount(c: SessionCredentials, accountId: number | undefined, extra: Key[] = []) {
  const found = await getSessionAndAccount<AccountRecord>(hashToken(c.accessToken), accountId, extra);
  const token: TokenRecord | undefined = live(found.session, c) ? { owner_type: 'user', owner_id: found.session!.user_id } : undefined;
  return { token, account: found.account, extra: found.extra };
}

export async function sessionUser(c: SessionCredentials | undefined): Promise<{ user: UserRecord; session: SessionRecord }> {
  const session = c && (await sessionOf(c));
  const user = session && (await getUser(session.user_id));
  if (!session || !user) throw notSignedIn();
  return { user, session };
}

async function openSession(user: UserRecord, uid: string, viaSso = false) {
  const token = ownerToken('user', user.id);
  const t = now();
  const session: SessionRecord = {
    token_hash: hashToken(token),
    user_id: user.id,
    client: randomId(16),
    uid,
    expiry: t + SESSION_LIFESPAN_SECONDS,
    created_at: t,
    ...(viaSso ? { via_sso: true } : {}),
  };
  await putSession(session);
  await dropSurplusSessions(user.id, t);
  return { credentials: { accessToken: token, client: session.client, uid, expiry: session.expiry }, data: await profile(user) };
}

/** A session just opened: the credentials its client sends from now on, and the user's profile. */
export type OpenedSession = Awaited<ReturnType<typeof openSession>>;

/** Expired sessions go, and beyond the device limit the oldest ones. */
async function dropSurplusSessions(userId: number, at: number) {
  const sessions = await listUserSessions(userId);
  const alive = sessions.filter((s) => s.expiry > at).sort((a, b) => b.created_at - a.created_at);
  const drop = [...sessions.filter((s) => s.expiry <= at), ...alive.slice(MAX_DEVICES)];
  await Promise.all(drop.map((s) => deleteSession(s.token_hash)));
}

/**
 * `POST /auth/sign_in` with email and password, or with the email and the token of a platform SSO link.
 * The attempt takes its throttle slots (per client address, per email) before anything is evaluated, so
 * parallel guesses are bounded like sequential ones; a success gives its slots back (only failures count).
 */
export async function signIn(input: SignIn, address: string) {
  const email = input.email.trim().toLowerCase();
  if (!email || (!input.password && !input.sso_auth_token)) throw badCredentials();
  const attempt = await takeSlots(
    [
      [THROTTLES.signInAddress, addressScope(address)],
      [THROTTLES.signInEmail, throttleEmail(input.email)],
    ],
    'Too many sign-in attempts. Please try again later.',
  );
  const user = await authenticate(input, email);
  if (!user) throw badCredentials();
  await attempt.release();
  return openSession(user, user.email, Boolean(input.sso_auth_token));
}

async function authenticate(input: SignIn, email: string): Promise<UserRecord | undefined> {
  if (input.sso_auth_token) {
    const sso = await takeOneTimeToken(keys.oneTimeToken('SSO', hashToken(input.sso_auth_token)));
    return sso && sso.email === email && sso.expires_at > now() ? getUser(sso.user_id) : undefined;
  }
  const userId = await getUserIdByEmail(email);
  const user = await getUser(userId ?? 0);
  const hash = user?.password_hash;
  const matches = await verifyPassword(input.password, hash ?? DUMMY_HASH);
  return user && hash && matches ? user : undefined;
}

/** `GET /auth/validate_token`. */
export async function validateToken(c: SessionCredentials | undefined) {
  const { user } = await sessionUser(c);
  const u = await profile(user);
  return { payload: { success: true, data: { ...u, created_at: user.created_at } } };
}

/** `DELETE /auth/sign_out`: this client's session only. */
export async function signOut(c: SessionCredentials | undefined) {
  const session = c && (await sessionOf(c));
  if (!session || !(await deleteSession(session.token_hash, session.client))) {
    throw new ServiceError('not_found', 'User was not found or was not logged in.', [
      { field: '', message: 'User was not found or was not logged in.', code: 'not_found' },
    ]);
  }
  return { success: true };
}

/**
 * Chatwoot's `remove_tokens_after_password_reset`: a password change signs out every other device.
 * The session that made the change (if any) stays; API access tokens are not sessions and stay.
 */
export async function revokeSessions(userId: number, keep?: string) {
  const sessions = await listUserSessions(userId);
  await Promise.all(sessions.filter((s) => s.token_hash !== keep).map((s) => deleteSession(s.token_hash)));
}

/**
 * `PUT /auth/password`: the emailed reset token sets a new password (once: the link is used), ends every
 * session of the user and signs this client in, as Chatwoot's PasswordsController#update does.
 */
export async function resetPassword(input: PasswordReset) {
  if (input.password_confirmation !== input.password) {
    throw unprocessable([{ field: 'password_confirmation', message: "doesn't match Password", code: 'confirmation' }]);
  }
  const user = await takePasswordReset(input.reset_password_token);
  if (!user) throw invalidField('reset_password_token', 'is invalid or has expired', 'invalid');
  const updated: UserRecord = {
    ...user,
    password_hash: await hashPassword(input.password),
    updated_at: Math.max(now(), user.updated_at + 1),
  };
  await saveUser(user, updated);
  await revokeSessions(user.id);
  return openSession(updated, updated.email);
}

/**
 * `GET /platform/api/v1/users/{id}/login`: Chatwoot's SSO link, the dashboard's login page with the email
 * and a one-time token that `POST /auth/sign_in {email, sso_auth_token}` exchanges for a session.
 */
export async function platformUserLogin(appId: number, userId: number) {
  return ssoLink(await permittedUser(appId, userId), config().publicBaseUrl);
}

async function ssoLink(user: UserRecord, baseUrl: string) {
  const token = newToken();
  const t = now();
  await putOneTimeToken(keys.oneTimeToken('SSO', hashToken(token)), 'sso_token', {
    user_id: user.id,
    email: user.email.toLowerCase(),
    expires_at: t + SSO_TOKEN_SECONDS,
    created_at: t,
  });
  const url = new URL('/app/login', baseUrl);
  url.searchParams.set('email', user.email);
  url.searchParams.set('sso_auth_token', token);
  return { url: url.toString() };
}
