import * as keys from '../keys.ts';
import { del, put, transact, type TxItem } from '../transact.ts';
import type { AgentBotRecord } from '#shared/model/identity.ts';
import { agentBotItem, tokenItem } from './identity.ts';
import { getItem } from './common.ts';
import { sameVersion, StaleWrite } from './versioned.ts';

// Writes of existing agent bots (their reads are AP11/AP12 in identity.ts).

/** AP11 after a lost race: the bot, strongly consistent. */
export const getAgentBotFresh = (id: number) => getItem<AgentBotRecord>(keys.agentBot(id), true);

/**
 * Replaces a bot as it was read (same version), as its next version; a changed token moves its token
 * item in the same transaction, so the old token stops working the moment the new one exists.
 */
export async function saveAgentBot(before: AgentBotRecord, after: AgentBotRecord): Promise<AgentBotRecord> {
  const next = { ...after, version: (before.version ?? 0) + 1 };
  const items: TxItem[] = [
    { item: put(agentBotItem(next), { condition: sameVersion(before.version) }), onConflict: () => new StaleWrite() },
  ];
  if (after.token_hash !== before.token_hash) {
    items.push({ item: del(keys.token(before.token_hash)) });
    items.push({ item: put(tokenItem(after.token_hash, { owner_type: 'agent_bot', owner_id: after.id }), { ifNew: true }) });
  }
  await transact(items);
  return next;
}

/** The bot, its token and, when a platform app made it, that app's permissible row. */
export async function deleteAgentBot(b: AgentBotRecord): Promise<void> {
  await transact([
    {
      item: del(keys.agentBot(b.id), { expression: 'token_hash = :h', values: { ':h': b.token_hash } }),
      onConflict: () => new StaleWrite(),
    },
    { item: del(keys.token(b.token_hash)) },
    ...(b.created_by_app !== null ? [{ item: del(keys.permissible(b.created_by_app, 'BOT', b.id)) }] : []),
  ]);
}
