import type { AgentBotRecord, Role, UserRecord } from './identity.ts';

/** Who acts on an account: a user in one of its roles, or an agent bot. */
export type Actor = { type: 'user'; user: UserRecord; role: Role } | { type: 'agent_bot'; bot: AgentBotRecord };
