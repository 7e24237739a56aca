import * as v from 'valibot';
import { Bool, Email, RequiredText } from '../schemas.ts';

const Role = v.picklist(['agent', 'administrator'], 'must be agent or administrator');

// Chatwoot's account_user availability; `available` is the name some clients (the n8n node) use for online.
const Availability = v.pipe(
  v.picklist(['online', 'offline', 'busy', 'available'], 'must be online, busy or offline'),
  v.transform((a) => (a === 'available' ? 'online' : a)),
);

const common = {
  role: v.optional(Role),
  availability: v.optional(Availability),
  /** Not a Chatwoot parameter, but what the n8n node and the OpenAPI document send; `availability` wins. */
  availability_status: v.optional(Availability),
  auto_offline: v.optional(Bool),
};

export const NewAgentSchema = v.object({ name: RequiredText(255), email: Email, ...common });
export const AgentUpdateSchema = v.object({ name: v.optional(RequiredText(255)), ...common });

export type NewAgent = v.InferOutput<typeof NewAgentSchema>;
export type AgentUpdate = v.InferOutput<typeof AgentUpdateSchema>;
