import * as v from 'valibot';
import { Id, JsonArray } from '../schemas.ts';

// The bodies that link an inbox to others (its agent bot, its members): apart from the inbox's own bodies
// (schemas.ts), so that their routes load none of those (docs/cost.md#cold-start).

export const SetAgentBotSchema = v.object({
  agent_bot: v.optional(v.nullable(v.union([v.literal(''), Id], 'must be an agent bot id or null'))),
});

export const InboxMembersSchema = v.object({
  inbox_id: Id,
  user_ids: JsonArray(Id),
});
