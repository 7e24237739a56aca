import { createHash, timingSafeEqual } from 'node:crypto';
import { hashToken } from '#shared/crypto/tokens.ts';
import { getItem } from '#shared/db/repositories/common.ts';
import { takeThrottleSlot } from '#shared/db/repositories/limits.ts';
import * as keys from '#shared/db/keys.ts';
import * as repo from '#shared/db/repositories/cable.ts';
import { getAccount, getAccountUser, getUser, listAccountUsers } from '#shared/db/repositories/identity.ts';
import { isSuspended } from '#shared/domain/accounts/suspension.ts';
import { addressScope } from '#shared/domain/throttles.ts';
import { log } from '#shared/log.ts';
import { deliver } from './senders.ts';
import type { CableSubscription } from '#shared/model/cable.ts';
import {
  frames,
  isFailure,
  MAX_FRAMES_PER_MINUTE,
  MAX_SOCKETS_PER_ADDRESS,
  MAX_SUBSCRIBE_ATTEMPTS,
  MAX_SUBSCRIPTIONS,
  parseCommand,
  ROOM_CHANNEL,
  type Sender,
} from './protocol.ts';

// The socket side of Chatwoot's RoomChannel over any transport: admission, subscriptions, presence. The local
// server and the deployed $connect / $disconnect / $default functions call these with a sender of their own.

/** Chatwoot's OnlineStatusTracker: present for a minute after the last update_presence. */
export const PRESENCE_SECONDS = 60;

/** API Gateway closes a connection after 2 hours; records outlive that a little, then expire. */
export const CONNECTION_LIFETIME_MS = 2 * 3600_000 + 10 * 60_000;

const nowSeconds = () => Math.floor(Date.now() / 1000);
const hashOf = (identifier: string) => createHash('sha256').update(identifier).digest('hex').slice(0, 32);

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Admits one more socket of a client address (at most MAX_SOCKETS_PER_ADDRESS open, counted in the table
 * across servers): the address's hash to record with the connection — its slot is given back when the
 * connection is removed — or false when the address has its sockets already. No address, no count.
 */
export async function admitSocket(address: string | undefined): Promise<{ addressHash?: string } | false> {
  if (!address) return {};
  const addressHash = hashToken(addressScope(address));
  const expiresAt = Math.ceil((Date.now() + CONNECTION_LIFETIME_MS) / 1000);
  return (await repo.takeSocketSlot(addressHash, MAX_SOCKETS_PER_ADDRESS, expiresAt)) ? { addressHash } : false;
}

/** Gives back the slot of a socket admitted but never recorded (its handshake failed). */
export const releaseSocket = (addressHash: string) => repo.releaseSocketSlot(addressHash);

/**
 * Counts one client frame of a connection in the table, for the WebSocket API, whose frames reach any
 * number of function containers: a fixed minute of MAX_FRAMES_PER_MINUTE, one conditional UpdateItem.
 * False once the connection is over it (the caller drops the frame and closes the connection).
 */
export async function admitFrame(connectionId: string, nowSeconds = Math.floor(Date.now() / 1000)): Promise<boolean> {
  const start = nowSeconds - (nowSeconds % 60);
  return takeThrottleSlot(keys.throttleWindow('CABLE_FRAMES', hashToken(connectionId), start), MAX_FRAMES_PER_MINUTE, start + 120);
}

export async function openConnection(
  connectionId: string,
  opts: { welcomed: boolean; lifetimeMs?: number; addressHash?: string },
): Promise<void> {
  const now = Date.now();
  await repo.putConnection({
    connection_id: connectionId,
    connected_at: now,
    expires_at: now + (opts.lifetimeMs ?? CONNECTION_LIFETIME_MS),
    welcomed: opts.welcomed,
    subscriptions: [],
    ...(opts.addressHash ? { address_hash: opts.addressHash } : {}),
  });
}

/**
 * Connections out of subscribe attempts (a count that only grows), kept in memory so a flood costs no
 * more reads; the stored count stays the rule where this process has not seen the connection.
 */
const exhausted = new Set<string>();
function remember(connectionId: string) {
  if (exhausted.size >= 10_000) exhausted.clear();
  exhausted.add(connectionId);
}

export async function closeConnection(connectionId: string): Promise<void> {
  exhausted.delete(connectionId);
  await repo.deleteConnection(connectionId);
}

type Principal = Omit<CableSubscription, 'connection_id' | 'identifier' | 'identifier_hash' | 'created_at'>;

const idParam = (v: unknown): number | undefined => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,12}$/.test(v) ? Number(v) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
};

/** RoomChannel's current_user: a user by id whose pubsub token matches, in that account; else a contact inbox by token. */
async function authorize(params: Record<string, unknown>): Promise<Principal | undefined> {
  const token = params.pubsub_token;
  if (typeof token !== 'string' || !token || token.length > 200) return undefined;
  const blank = params.user_id === undefined || params.user_id === null || params.user_id === '';
  if (!blank) {
    const userId = idParam(params.user_id);
    const accountId = idParam(params.account_id);
    if (!userId || !accountId) return undefined;
    const [user, membership] = await Promise.all([getUser(userId), getAccountUser(accountId, userId)]);
    if (!user || !membership || !sameToken(user.pubsub_token, token)) return undefined;
    return {
      account_id: accountId,
      kind: 'user',
      user_id: userId,
      role: membership.role,
      contact_id: null,
      pubsub_token: null,
      hmac_verified: false,
    };
  }
  const ci = await repo.findContactInboxByPubsubToken(token);
  if (!ci || !sameToken(ci.pubsub_token, token)) return undefined;
  return {
    account_id: ci.account_id,
    kind: 'contact',
    user_id: null,
    role: null,
    contact_id: ci.contact_id,
    pubsub_token: ci.pubsub_token,
    hmac_verified: ci.hmac_verified,
  };
}

async function suspendedAccount(accountId: number): Promise<boolean> {
  const account = await getAccount(accountId);
  return !account || isSuspended(account);
}

/** One client frame. Bad input is dropped or refused on this connection only; nothing here throws at the caller for it. */
export async function handleFrame(connectionId: string, raw: string | Buffer, sender: Sender): Promise<void> {
  const cmd = parseCommand(raw);
  if (isFailure(cmd)) {
    log.debug('cable frame ignored', { connectionId, reason: cmd.error });
    return;
  }
  const reject = () => sender.send(connectionId, frames.reject(cmd.identifier));
  const hash = hashOf(cmd.identifier);
  if (cmd.command === 'subscribe') {
    if (cmd.params.channel !== ROOM_CHANNEL || exhausted.has(connectionId)) return void (await reject());
    const connection = await repo.getConnection(connectionId);
    if (!connection) return;
    // A repeated subscribe (the client's guarantor resends until confirmed) is ignored, as Rails does.
    if (connection.subscriptions.some((ref) => ref.endsWith(`|${hash}`))) return;
    // Each subscribe may cost a token lookup: a connection that floods them runs out of tries for good.
    const attempts = await repo.countSubscribeAttempt(connectionId);
    if (attempts === undefined) return;
    if (attempts > MAX_SUBSCRIBE_ATTEMPTS) {
      remember(connectionId);
      return void (await reject());
    }
    if (connection.subscriptions.length >= MAX_SUBSCRIPTIONS) return void (await reject());
    const principal = await authorize(cmd.params);
    // A suspended account is refused on every interface, the socket included (issue: suspension).
    if (!principal || (await suspendedAccount(principal.account_id))) return void (await reject());
    const sub: CableSubscription = {
      ...principal,
      connection_id: connectionId,
      identifier: cmd.identifier,
      identifier_hash: hash,
      created_at: nowSeconds(),
    };
    try {
      await repo.addSubscription(sub, MAX_SUBSCRIPTIONS, connection.expires_at);
    } catch (err) {
      if (err instanceof repo.SubscriptionRefused) return void (await reject());
      throw err;
    }
    await sender.send(connectionId, frames.confirm(cmd.identifier));
    // RoomChannel#subscribed marks the subscriber present and tells it who is online.
    await updatePresence(sub, sender);
    return;
  }
  const connection = await repo.getConnection(connectionId);
  const ref = connection?.subscriptions.find((r) => r.endsWith(`|${hash}`));
  if (!connection || !ref) return;
  const accountId = Number(ref.split('|')[0]);
  if (cmd.command === 'unsubscribe') {
    await repo.removeSubscription(connection, accountId, hash);
    return;
  }
  if (cmd.command === 'message' && cmd.data.action === 'update_presence') {
    const sub = await getItem<CableSubscription>(keys.cableSubscription(accountId, connectionId, hash), true);
    if (sub) await updatePresence(sub, sender);
  }
}

/**
 * Who of the account is online: users with their status, and contacts. Someone present is connected,
 * so only a chosen `busy` shows; the stored `offline` default of a membership does not hide a live agent.
 */
export async function presenceData(accountId: number) {
  const since = nowSeconds() - PRESENCE_SECONDS;
  const present = await repo.listPresence(accountId, since);
  const userIds = present.filter((p) => p.kind === 'user').map((p) => p.id);
  const status = new Map<number, string>();
  if (userIds.length) for (const m of await listAccountUsers(accountId)) status.set(m.user_id, m.availability);
  const users: Record<string, string> = {};
  for (const id of userIds) users[id] = status.get(id) === 'busy' ? 'busy' : 'online';
  const contacts = Object.fromEntries(present.filter((p) => p.kind === 'contact').map((p) => [String(p.id), 'online']));
  return { account_id: accountId, users, contacts };
}

/** Contacts learn which agents are online, never which other contacts are (RoomChannel#broadcast_presence). */
const presenceFor = (sub: CableSubscription, data: Awaited<ReturnType<typeof presenceData>>) =>
  sub.kind === 'user' ? data : { account_id: data.account_id, users: data.users };

/**
 * `update_presence`: marks the subscriber present and answers it with the account's presence. Someone
 * who was not present before is announced to every user of the account at once.
 */
export async function updatePresence(sub: CableSubscription, sender: Sender): Promise<void> {
  const id = sub.kind === 'user' ? sub.user_id : sub.contact_id;
  if (id === null) return;
  const now = nowSeconds();
  const before = await repo.touchPresence({ account_id: sub.account_id, kind: sub.kind, id, seen_at: now }, PRESENCE_SECONDS * 2);
  const cameOnline = before === undefined || before < now - PRESENCE_SECONDS;
  const data = await presenceData(sub.account_id);
  await sender.send(sub.connection_id, frames.event(sub.identifier, 'presence.update', presenceFor(sub, data)));
  if (!cameOnline) return;
  const others = (await repo.listAccountSubscriptions(sub.account_id)).filter(
    (s) => s.kind === 'user' && s.connection_id !== sub.connection_id,
  );
  await deliver(
    sender,
    others.map((s) => ({ sub: s, frame: frames.event(s.identifier, 'presence.update', data) })),
  );
}
