import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { hashToken } from '../crypto/tokens.ts';
import { getToken, getTokenAndAccount, getUser } from '../db/repositories/identity.ts';
import { getMany } from '../db/repositories/common.ts';
import { keys } from '../db/keys.ts';
import type { AccountRecord, AccountUserRecord, AgentBotRecord, Role, TokenRecord, UserRecord } from '../domain/model.ts';
import { forbidden, notFound, unauthorized } from './errors.ts';
import { sessionOf, sessionTokenAndAccount, type SessionCredentials } from '../domain/sessions/service.ts';

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

/**
 * devise_token_auth's `access-token`, `client` and `uid` headers, read (as Chatwoot does) only when no
 * `api_access_token` is sent.
 */
export function sessionCredentialsOf(event: APIGatewayProxyEventV2): SessionCredentials | undefined {
  if (credentialOf(event)) return undefined;
  const h = event.headers ?? {};
  const get = (name: string) => Object.entries(h).find(([n]) => n.toLowerCase() === name)?.[1]?.trim();
  const [accessToken, client, uid] = [get('access-token'), get('client'), get('uid')];
  return accessToken && client && uid ? { accessToken, client, uid } : undefined;
}

const requireCredential = (event: APIGatewayProxyEventV2) => {
  const token = credentialOf(event);
  if (!token) throw unauthorized('You need to send an access token in the api_access_token header');
  return hashToken(token);
};

export type Actor =
  | { type: 'user'; user: UserRecord; role: Role }
  | { type: 'agent_bot'; bot: AgentBotRecord };

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
    if (!(session ? await sessionOf(session) : await getToken(hash))) throw unauthorized('Invalid access token');
    throw notFound('Account');
  }
  const { token, account } = session ? await sessionTokenAndAccount(session, accountId) : await getTokenAndAccount(hash, accountId);
  if (!token || token.owner_type === 'platform_app') throw unauthorized('Invalid access token');
  if (!account) throw notFound('Account');

  let actor: Actor;
  if (token.owner_type === 'user') {
    const [membership, user] = await getMany<AccountUserRecord | UserRecord>([
      keys.accountUser(accountId, token.owner_id),
      keys.user(token.owner_id),
    ]);
    if (!membership || !user) throw notFound('Account');
    actor = { type: 'user', user: user as UserRecord, role: (membership as AccountUserRecord).role };
  } else {
    const [bot, link] = await getMany<AgentBotRecord | object>([
      keys.agentBot(token.owner_id),
      keys.agentBotAccess(accountId, token.owner_id),
    ]);
    if (!bot || ((bot as AgentBotRecord).account_id !== accountId && !link)) throw notFound('Account');
    actor = { type: 'agent_bot', bot: bot as AgentBotRecord };
  }

  if (account.status === 'suspended') throw forbidden('Account is suspended', 'account_suspended');
  if (actor.type === 'agent_bot' && !botsAllowed) throw forbidden('Agent bot tokens cannot call this endpoint');
  if (access === 'administrator' && actor.type === 'user' && actor.role !== 'administrator') {
    throw forbidden('Only administrators can do this');
  }
  return { account, actor };
}

/** A user token outside any account (profile). */
export async function authenticateUser(event: APIGatewayProxyEventV2): Promise<UserRecord> {
  const session = sessionCredentialsOf(event);
  const s = session && (await sessionOf(session));
  const token = session ? s && ({ owner_type: 'user', owner_id: s.user_id } as TokenRecord) : await getToken(requireCredential(event));
  if (!token || token.owner_type !== 'user') throw unauthorized('Invalid access token');
  const user = await getUser(token.owner_id);
  if (!user) throw unauthorized('Invalid access token');
  return user;
}

/** Platform interface: platform app tokens only. */
export async function authenticatePlatform(event: APIGatewayProxyEventV2): Promise<{ appId: number }> {
  const token: TokenRecord | undefined = await getToken(requireCredential(event));
  if (!token || token.owner_type !== 'platform_app') throw unauthorized('Invalid platform access token');
  return { appId: token.owner_id };
}
