import type { AgentBotRecord } from '#shared/model/identity.ts';

/**
 * Agent bot JSON (docs/contract.md#agent-bot). Chatwoot 4.10 renders the bot's name into `outgoing_url`;
 * this renders the URL, which is what clients that read it back need.
 */
export function agentBotJson(b: AgentBotRecord, accessToken: string | undefined) {
  return {
    id: b.id,
    name: b.name,
    description: b.description,
    thumbnail: b.thumbnail,
    outgoing_url: b.outgoing_url,
    bot_type: b.bot_type,
    bot_config: b.bot_config,
    account_id: b.account_id,
    ...(accessToken !== undefined ? { access_token: accessToken } : {}),
    system_bot: b.account_id === null,
  };
}

/**
 * Agent bot JSON on the account interface (docs/chatwoot.md#agent-bot-routes-and-json): a system bot is shown without
 * its `outgoing_url` and token, which are its owner's; `accessToken` is passed only for the account's own bots and
 * only to administrators (the token acts for the bot in every conversation of the account).
 */
export function accountAgentBotJson(b: AgentBotRecord, accessToken: string | undefined) {
  if (b.account_id !== null) return agentBotJson(b, accessToken);
  const { outgoing_url: _hidden, ...json } = agentBotJson(b, undefined);
  return json;
}
