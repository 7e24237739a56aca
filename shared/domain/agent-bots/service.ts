import { hashToken, ownerToken, seal, unseal } from '#shared/crypto/tokens.ts';
import { nextId } from '#shared/db/ids.ts';
import { deleteAgentBot, getAgentBotFresh, saveAgentBot } from '#shared/db/repositories/agent-bots.ts';
import {
  createAgentBot,
  deletePlatformBotItems,
  getAccount,
  getAgentBot,
  getAgentBots,
  isPermissible,
  listAgentBots,
  listPermissible,
} from '#shared/db/repositories/identity.ts';
import { retryStale } from '#shared/db/repositories/versioned.ts';
import type { Actor } from '#shared/model/actor.ts';
import { invalidField, notFound } from '#shared/errors.ts';
import { listInboxSummaries } from '#shared/db/repositories/inboxes.ts';
import { setInboxAgentBot } from '../inboxes/service.ts';
import type { AgentBotRecord } from '#shared/model/identity.ts';
import { now } from '#shared/model/time.ts';
import type { AccountAgentBotUpdate, NewAccountAgentBot, NewPlatformAgentBot, PlatformAgentBotUpdate } from './schemas.ts';
import { accountAgentBotJson, agentBotJson } from './view.ts';

export async function presentBot(b: AgentBotRecord) {
  return agentBotJson(b, await unseal(b.sealed_token));
}

async function requirePermittedAccount(appId: number, accountId: number | null | undefined) {
  if (accountId == null) return;
  if (!(await isPermissible(appId, 'ACCOUNT', accountId))) {
    throw invalidField('account_id', 'Account must exist', 'not_found');
  }
}

/** A new bot record with its own API token; `account_id` null makes it a system bot. */
export async function newBotRecord(
  input: Omit<NewPlatformAgentBot, 'account_id'> & { account_id: number | null },
  createdByApp: number | null,
): Promise<{ bot: AgentBotRecord; token: string }> {
  const id = await nextId('agent_bot');
  const token = ownerToken('agent_bot', id);
  const t = now();
  const bot: AgentBotRecord = {
    id,
    name: input.name,
    description: input.description ?? null,
    outgoing_url: input.outgoing_url ?? null,
    thumbnail: input.avatar_url ?? '',
    bot_type: input.bot_type ?? 'webhook',
    bot_config: input.bot_config ?? {},
    account_id: input.account_id,
    sealed_token: await seal(token),
    token_hash: hashToken(token),
    created_by_app: createdByApp,
    created_at: t,
    updated_at: t,
  };
  return { bot, token };
}

export async function createPlatformBot(appId: number, input: NewPlatformAgentBot) {
  await requirePermittedAccount(appId, input.account_id);
  const { bot, token } = await newBotRecord({ ...input, account_id: input.account_id ?? null }, appId);
  await createAgentBot(bot, appId);
  return agentBotJson(bot, token);
}

async function permittedBot(appId: number, id: number): Promise<AgentBotRecord> {
  const [allowed, bot] = await Promise.all([isPermissible(appId, 'BOT', id), getAgentBot(id)]);
  if (!allowed || !bot) throw notFound('Agent bot');
  return bot;
}

/** Contract endpoint 12 (docs/contract.md#endpoints): the bots this app created. */
export async function listPlatformBots(appId: number) {
  const ids = await listPermissible(appId, 'BOT');
  const bots = (await getAgentBots(ids)).filter((b): b is AgentBotRecord => !!b);
  return Promise.all(bots.map(presentBot));
}

export async function showPlatformBot(appId: number, id: number) {
  return presentBot(await permittedBot(appId, id));
}

/** A bot with the changes of an update body applied (fields absent from the body stay). */
function withChanges(bot: AgentBotRecord, input: AccountAgentBotUpdate & { account_id?: number | null }): AgentBotRecord {
  return {
    ...bot,
    name: input.name ?? bot.name,
    description: input.description !== undefined ? input.description : bot.description,
    outgoing_url: input.outgoing_url !== undefined ? input.outgoing_url : bot.outgoing_url,
    thumbnail: input.avatar_url !== undefined ? (input.avatar_url ?? '') : bot.thumbnail,
    bot_type: input.bot_type ?? bot.bot_type,
    bot_config: input.bot_config ?? bot.bot_config,
    account_id: input.account_id !== undefined ? input.account_id : bot.account_id,
    updated_at: now(),
  };
}

/** Reads a bot, changes it and writes it back, re-reading after a lost race; 404 unless `mayChange`. */
async function changeBot(
  id: number,
  mayChange: (b: AgentBotRecord) => boolean | Promise<boolean>,
  change: (b: AgentBotRecord) => AgentBotRecord,
): Promise<AgentBotRecord> {
  return retryStale(async (consistent) => {
    const before = consistent ? await getAgentBotFresh(id) : await getAgentBot(id);
    if (!before || !(await mayChange(before))) throw notFound('Agent bot');
    return saveAgentBot(before, change(before));
  });
}

export async function updatePlatformBot(appId: number, id: number, input: PlatformAgentBotUpdate) {
  const permitted = async () => {
    if (!(await isPermissible(appId, 'BOT', id))) return false;
    if (input.account_id !== undefined) await requirePermittedAccount(appId, input.account_id);
    return true;
  };
  return presentBot(await changeBot(id, permitted, (bot) => withChanges(bot, input)));
}

export async function deletePlatformBot(appId: number, id: number): Promise<void> {
  const bot = await permittedBot(appId, id);
  await deletePlatformBotItems(appId, bot);
}

// ── Account interface: /api/v1/accounts/{account_id}/agent_bots (docs/chatwoot.md#agent-bot-routes-and-json) ──

const isAdministrator = (actor: Actor) => actor.type === 'user' && actor.role === 'administrator';

/** The account's own bots show their token to administrators; system bots never do. */
async function presentForAccount(b: AgentBotRecord, actor: Actor) {
  const token = b.account_id !== null && isAdministrator(actor) ? await unseal(b.sealed_token) : undefined;
  return accountAgentBotJson(b, token);
}

/** The account's bots, then the system bots every account may use. */
export async function listAccountBots(accountId: number, actor: Actor) {
  const [own, system] = await Promise.all([listAgentBots(accountId), listAgentBots(null)]);
  return Promise.all([...own, ...system].map((b) => presentForAccount(b, actor)));
}

export async function showAccountBot(accountId: number, actor: Actor, id: number) {
  const bot = await getAgentBot(id);
  if (!bot || (bot.account_id !== accountId && bot.account_id !== null)) throw notFound('Agent bot');
  return presentForAccount(bot, actor);
}

export async function createAccountBot(accountId: number, input: NewAccountAgentBot) {
  const { bot, token } = await newBotRecord({ ...input, account_id: accountId }, null);
  await createAgentBot(bot);
  return agentBotJson(bot, token);
}

/** Only the account's own bots can be changed here; system bots answer 404 like foreign ones. */
const ownedBy = (accountId: number) => (b: AgentBotRecord) => b.account_id === accountId;

export async function updateAccountBot(accountId: number, id: number, input: AccountAgentBotUpdate) {
  return presentBot(await changeBot(id, ownedBy(accountId), (bot) => withChanges(bot, input)));
}

export async function deleteAccountBotAvatar(accountId: number, id: number) {
  return presentBot(await changeBot(id, ownedBy(accountId), (bot) => ({ ...bot, thumbnail: '', updated_at: now() })));
}

/** A new token replaces the old one at once (the old token item goes in the same transaction). */
export async function resetAccountBotToken(accountId: number, id: number) {
  const token = ownerToken('agent_bot', id);
  const sealed = await seal(token);
  const bot = await changeBot(id, ownedBy(accountId), (b) => ({
    ...b,
    sealed_token: sealed,
    token_hash: hashToken(token),
    updated_at: now(),
  }));
  return agentBotJson(bot, token);
}

export async function deleteAccountBot(accountId: number, id: number): Promise<void> {
  await retryStale(async (consistent) => {
    const bot = consistent ? await getAgentBotFresh(id) : await getAgentBot(id);
    if (!bot || !ownedBy(accountId)(bot)) throw notFound('Agent bot');
    await deleteAgentBot(bot);
  });
  // Inboxes that used it go back to humans: otherwise their new conversations would still start pending.
  const [account, inboxes] = await Promise.all([getAccount(accountId), listInboxSummaries(accountId)]);
  for (const inbox of inboxes.filter((i) => i.agent_bot_id === id)) {
    if (account) await setInboxAgentBot(account, inbox.id, null);
  }
}
