import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { hashToken, tokenOwnerHint } from '#shared/crypto/tokens.ts';
import { getToken, getUser } from '#shared/db/repositories/identity.ts';
import { getMany } from '#shared/db/repositories/common.ts';
import * as keys from '#shared/db/keys.ts';
import { identityPartition, type Key } from '#shared/db/keys.ts';
import { onWrite } from '#shared/db/client.ts';
import type { AccountRecord, AccountUserRecord, AgentBotRecord, TokenRecord, UserRecord } from '#shared/model/identity.ts';
import type { Actor } from '#shared/model/actor.ts';
import { forbidden, notFound, unauthorized } from '#shared/errors.ts';
import { assertAccountActive } from '#shared/domain/accounts/suspension.ts';
import { sessionOf, sessionTokenAndAccount, type OpenedSession, type SessionCredentials } from '#shared/domain/sessions/service.ts';
import { reply } from './response.ts';

/** `api_access_token` (any case, underscore or dash), or `Authorization: Bearer <token>`. */
export function credentialOf(event: APIGatewayProxyEventV2): string | undefined {
  const h = event.headers ?? {};
  for (const [name, value] of Object.entries(h)) {
    const n = name.toLowerCase();
    if ((n === 'api_access_token' || n === 'api-access-token') && value) return value.trim();
  }
  const auth = Object.entries(h).find(([n]) => n.toLowerCase() === 'authorization')?.[1];
  const m = auth?.match(/^Bearer\s+(\S+)\s*$/i);
  return m?.[1];
}

// ── credential cache ───────────────────────────────────────────────────────────────────────────────
// A warm function answers a token it saw less than CREDENTIAL_TTL_MS ago without reading anything; a
// token it knows, in an account it has not seen it in, costs one BatchGet (account, membership or bot
// link, user or bot); an unknown token one too when it names its owner (every token and session made
// since tokens do, see `ownerToken`: token, account and the owner's items together), two for an older
// token (token and account, then the owner). Only successful lookups are kept, so a new token or
// membership works at once. Revocation (token reset or deleted, membership
// removed, role changed, account suspended) reaches a container within CREDENTIAL_TTL_MS, and at once
// on the container that made the change (every container where one process runs all functions, as the
// local runtime does); `forgetCredential` ends a token's cached lookups at once (sign-out).

export const CREDENTIAL_TTL_MS = 30_000;
const MAX_CREDENTIALS = 10_000;
const credentials = new Map<string, { at: number; value: Promise<unknown> }>();

function remembered<T>(id: string, load: () => Promise<T>): Promise<T> {
  const hit = credentials.get(id);
  if (hit && Date.now() - hit.at < CREDENTIAL_TTL_MS) return hit.value as Promise<T>;
  if (credentials.size >= MAX_CREDENTIALS) credentials.clear();
  const value = load();
  credentials.set(id, { at: Date.now(), value });
  value.catch(() => credentials.delete(id));
  return value;
}

/** Drops every cached lookup of a token (sign-out), by its SHA-256 hash. */
export function forgetCredential(hash: string) {
  for (const id of credentials.keys()) if (id.startsWith(`${hash}|`)) credentials.delete(id);
}

// Identity items this container writes (tokens, accounts, memberships, users, bots, platform apps)
// drop the cache: it keeps no answer older than the write.
onWrite((written) => {
  if (written.some((k) => identityPartition(k.pk))) credentials.clear();
});

/** The token record (cached with the lookups, as `<hash>|token`). */
async function knownToken(hash: string) {
  const token = await remembered(`${hash}|token`, () => getToken(hash));
  if (!token) credentials.delete(`${hash}|token`);
  return token;
}

const sameOwner = (a: TokenRecord | undefined, b: TokenRecord | undefined) =>
  !!a && !!b && a.owner_type === b.owner_type && a.owner_id === b.owner_id;

async function accountCredential(hash: string, accountId: number, hint?: TokenRecord): Promise<{ account: AccountRecord; actor: Actor }> {
  const cached = credentials.get(`${hash}|token`);
  const known = cached && Date.now() - cached.at < CREDENTIAL_TTL_MS ? ((await cached.value) as TokenRecord | undefined) : undefined;
  if (!known) {
    // The token, the account and (when the token names its owner) the owner's items, in one BatchGet.
    const [token, account, ...owner] = await getMany<object>([
      keys.token(hash),
      keys.account(accountId),
      ...(hint ? ownerKeys(hint, accountId) : []),
    ]);
    const found = { token: token as TokenRecord | undefined, account: account as AccountRecord | undefined };
    if (found.token) credentials.set(`${hash}|token`, { at: Date.now(), value: Promise.resolve(found.token) });
    return ownerCredential(found, accountId, sameOwner(found.token, hint) ? owner : undefined);
  }
  // A known token: the account and the owner's records in one round trip.
  const [account, ...owner] = await getMany<object>([keys.account(accountId), ...ownerKeys(known, accountId)]);
  return ownerCredential({ token: known, account: account as AccountRecord | undefined }, accountId, owner);
}

/** The actor of a token (or session) owner in the path's account; `owner` when its records were read already. */
async function ownerCredential(
  found: { token: TokenRecord | undefined; account: AccountRecord | undefined },
  accountId: number,
  owner?: (object | undefined)[],
): Promise<{ account: AccountRecord; actor: Actor }> {
  const { token, account } = found;
  if (!token || token.owner_type === 'platform_app') throw unauthorized('Invalid access token');
  if (!account) throw notFound('Account');
  const [first, second] = owner ?? (await getMany<object>(ownerKeys(token, accountId)));
  if (token.owner_type === 'user') {
    const [membership, user] = [first as AccountUserRecord | undefined, second as UserRecord | undefined];
    if (!membership || !user) throw notFound('Account');
    return { account, actor: { type: 'user', user, role: membership.role } };
  }
  const [bot, link] = [first as AgentBotRecord | undefined, second];
  if (!bot || (bot.account_id !== accountId && !link)) throw notFound('Account');
  return { account, actor: { type: 'agent_bot', bot } };
}

const ownerKeys = (token: TokenRecord, accountId: number): Key[] =>
  token.owner_type === 'user'
    ? [keys.accountUser(accountId, token.owner_id), keys.user(token.owner_id)]
    : [keys.agentBot(token.owner_id), keys.agentBotAccess(accountId, token.owner_id)];

/**
 * devise_token_auth's `access-token`, `client` and `uid` headers, read (as Chatwoot does) only when no
 * `api_access_token` is sent.
 */
export function sessionCredentialsOf(event: APIGatewayProxyEventV2): SessionCredentials | undefined {
  if (credentialOf(event)) return undefined;
  const h = event.headers ?? {};
  const get = (name: string) =>
    Object.entries(h)
      .find(([n]) => n.toLowerCase() === name)?.[1]
      ?.trim();
  const [accessToken, client, uid] = [get('access-token'), get('client'), get('uid')];
  return accessToken && client && uid ? { accessToken, client, uid } : undefined;
}

/** devise_token_auth's answer to a new session: the profile, and the headers its client sends back from now on. */
export const sessionReply = ({ credentials: c, data }: OpenedSession) =>
  reply(200, { data }, { 'access-token': c.accessToken, 'token-type': 'Bearer', client: c.client, expiry: String(c.expiry), uid: c.uid });

const requireCredential = (event: APIGatewayProxyEventV2) => {
  const token = credentialOf(event);
  if (!token) throw unauthorized('You need to send an access token in the api_access_token header');
  return hashToken(token);
};

export type AccountAccess = 'administrator' | 'member';

/**
 * Account interface: the token's owner must belong to the account of the path. An account the caller
 * does not belong to answers 404 like an absent one; a member without the role answers 403.
 */
export async function authenticateAccount(
  event: APIGatewayProxyEventV2,
  accountId: number | undefined,
  access: AccountAccess,
  botsAllowed: boolean,
): Promise<{ account: AccountRecord; actor: Actor }> {
  const session = sessionCredentialsOf(event);
  const hash = session ? '' : requireCredential(event);
  if (accountId === undefined) {
    if (!(session ? await sessionOf(session) : await knownToken(hash))) throw unauthorized('Invalid access token');
    throw notFound('Account');
  }
  // Sessions are read every time, so a sign-out ends them at once everywhere; tokens through the cache.
  const { account, actor } = session
    ? await sessionCredential(session, accountId)
    : await remembered(`${hash}|${accountId}`, () => accountCredential(hash, accountId, tokenOwnerHint(credentialOf(event)!)));

  assertAccountActive(account);
  if (actor.type === 'agent_bot' && !botsAllowed) throw forbidden('Agent bot tokens cannot call this endpoint');
  if (access === 'administrator' && actor.type === 'user' && actor.role !== 'administrator') {
    throw forbidden('Only administrators can do this');
  }
  return { account, actor };
}

/** A session's actor in the path's account: one round trip when its access-token names its user. */
async function sessionCredential(session: SessionCredentials, accountId: number) {
  const hint = tokenOwnerHint(session.accessToken);
  const found = await sessionTokenAndAccount(session, accountId, hint ? ownerKeys(hint, accountId) : []);
  return ownerCredential(found, accountId, sameOwner(found.token, hint) ? found.extra : undefined);
}

/** A user token outside any account (profile): one round trip when the token names its user. */
export async function authenticateUser(event: APIGatewayProxyEventV2): Promise<UserRecord> {
  const session = sessionCredentialsOf(event);
  if (session) {
    const hint = tokenOwnerHint(session.accessToken);
    const found = await sessionTokenAndAccount(session, undefined, hint?.owner_type === 'user' ? [keys.user(hint.owner_id)] : []);
    if (!found.token) throw unauthorized('Invalid access token');
    const user = sameOwner(found.token, hint) ? (found.extra[0] as UserRecord | undefined) : await getUser(found.token.owner_id);
    if (!user) throw unauthorized('Invalid access token');
    return user;
  }
  const hash = requireCredential(event);
  return remembered(`${hash}|user`, async () => {
    const hint = tokenOwnerHint(credentialOf(event)!);
    const cached = credentials.get(`${hash}|token`);
    let token: TokenRecord | undefined;
    let user: UserRecord | undefined;
    let userRead = false;
    if (hint?.owner_type === 'user' && !(cached && Date.now() - cached.at < CREDENTIAL_TTL_MS)) {
      const [t, u] = await getMany<object>([keys.token(hash), keys.user(hint.owner_id)]);
      token = t as TokenRecord | undefined;
      if (token) credentials.set(`${hash}|token`, { at: Date.now(), value: Promise.resolve(token) });
      if (sameOwner(token, hint)) [user, userRead] = [u as UserRecord | undefined, true];
    } else token = await knownToken(hash);
    if (token?.owner_type !== 'user') throw unauthorized('Invalid access token');
    if (!userRead) user = await getUser(token.owner_id);
    if (!user) throw unauthorized('Invalid access token');
    return user;
  });
}

/** Platform interface: platform app tokens only. */
export async function authenticatePlatform(event: APIGatewayProxyEventV2): Promise<{ appId: number }> {
  const token: TokenRecord | undefined = await knownToken(requireCredential(event));
  if (token?.owner_type !== 'platform_app') throw unauthorized('Invalid platform access token');
  return { appId: token.owner_id };
}
