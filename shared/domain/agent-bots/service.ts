import { hashToken, newToken, seal, unseal } from '../../crypto/tokens.ts';
import { nextId } from '../../db/ids.ts';
import { keys } from '../../db/keys.ts';
import {
  agentBotItem,
  getAgentBot,
  getAgentBots,
  isPermissible,
  listPermissible,
  permissibleItem,
  tokenItem,
  transact,
} from '../../db/repositories/identity.ts';
import { del, put } from '../../db/transact.ts';
import { invalidField, notFound } from '../../http/errors.ts';
import { now, type AgentBotRecord } from '../model.ts';
import type { NewPlatformAgentBot, PlatformAgentBotUpdate } from './schemas.ts';
import { agentBotJson } from './view.ts';

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
  const token = newToken();
  const t = now();
  const bot: AgentBotRecord = {
    id: await nextId('agent_bot'),
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

export const botWriteItems = (bot: AgentBotRecord) => [
  { item: put(agentBotItem(bot), { ifNew: true }) },
  { item: put(tokenItem(bot.token_hash, { owner_type: 'agent_bot', owner_id: bot.id }), { ifNew: true }) },
];

export async function createPlatformBot(appId: number, input: NewPlatformAgentBot) {
  await requirePermittedAccount(appId, input.account_id);
  const { bot, token } = await newBotRecord({ ...input, account_id: input.account_id ?? null }, appId);
  await transact([...botWriteItems(bot), { item: permissibleItem(appId, 'BOT', bot.id) }]);
  return agentBotJson(bot, token);
}

async function permittedBot(appId: number, id: number): Promise<AgentBotRecord> {
  const [allowed, bot] = await Promise.all([isPermissible(appId, 'BOT', id), getAgentBot(id)]);
  if (!allowed || !bot) throw notFound('Agent bot');
  return bot;
}

/** Spec endpoint 12: the bots this app created. */
export async function listPlatformBots(appId: number) {
  const ids = await listPermissible(appId, 'BOT');
  const bots = (await getAgentBots(ids)).filter((b): b is AgentBotRecord => !!b);
  return Promise.all(bots.map(presentBot));
}

export async function showPlatformBot(appId: number, id: number) {
  return presentBot(await permittedBot(appId, id));
}

export async function updatePlatformBot(appId: number, id: number, input: PlatformAgentBotUpdate) {
  const bot = await permittedBot(appId, id);
  if (input.account_id !== undefined) await requirePermittedAccount(appId, input.account_id);
  const updated: AgentBotRecord = {
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
  await transact([
    {
      item: put(agentBotItem(updated), { condition: { expression: 'updated_at = :u', values: { ':u': bot.updated_at } } }),
    },
  ]);
  return presentBot(updated);
}

export async function deletePlatformBot(appId: number, id: number): Promise<void> {
  const bot = await permittedBot(appId, id);
  await transact([
    { item: del(keys.agentBot(id)) },
    { item: del(keys.token(bot.token_hash)) },
    { item: del(keys.permissible(appId, 'BOT', id)) },
  ]);
}
