import * as v from 'valibot';
import { HttpUrl, Id, JsonObject, RequiredText, Text } from '../schemas.ts';

const fields = {
  description: v.optional(v.nullable(Text(20000))),
  outgoing_url: v.optional(v.nullable(HttpUrl)),
  avatar_url: v.optional(v.nullable(HttpUrl)),
  bot_type: v.optional(v.picklist(['webhook'], 'must be webhook')),
  bot_config: v.optional(JsonObject),
};

export const NewPlatformAgentBotSchema = v.object({
  name: RequiredText(255),
  account_id: v.optional(v.nullable(Id)),
  ...fields,
});

export const PlatformAgentBotUpdateSchema = v.object({
  name: v.optional(RequiredText(255)),
  account_id: v.optional(v.nullable(Id)),
  ...fields,
});

export type NewPlatformAgentBot = v.InferOutput<typeof NewPlatformAgentBotSchema>;
export type PlatformAgentBotUpdate = v.InferOutput<typeof PlatformAgentBotUpdateSchema>;

/** Account interface (`/api/v1/accounts/{id}/agent_bots`): the bot always belongs to the path's account. */
export const NewAccountAgentBotSchema = v.object({ name: RequiredText(255), ...fields });
export const AccountAgentBotUpdateSchema = v.object({ name: v.optional(RequiredText(255)), ...fields });

export type NewAccountAgentBot = v.InferOutput<typeof NewAccountAgentBotSchema>;
export type AccountAgentBotUpdate = v.InferOutput<typeof AccountAgentBotUpdateSchema>;
