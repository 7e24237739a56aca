// Stored records of the identity area (snake_case, as the API shows them). Timestamps are Unix seconds
// unless the name says otherwise.

export type OwnerType = 'user' | 'agent_bot' | 'platform_app';

export interface TokenRecord {
  owner_type: OwnerType;
  owner_id: number;
}

export interface PlatformAppRecord {
  id: number;
  name: string;
  created_at: number;
}

export type AccountStatus = 'active' | 'suspended';

export interface AccountRecord {
  id: number;
  name: string;
  locale: string;
  domain: string | null;
  support_email: string | null;
  status: AccountStatus;
  limits: Record<string, number>;
  custom_attributes: Record<string, unknown>;
  features: Record<string, boolean>;
  created_at: number;
  updated_at: number;
  /**
   * True when the account counters (AP67) hold every conversation: accounts made since they exist. Older
   * accounts count through their inbox counters (AP66), whose reads grow with their inboxes.
   */
  account_counters?: boolean;
  /** True when its report facts are sharded (`keys.reportFact`): accounts made since the shards exist. */
  sharded_report_facts?: boolean;
  /**
   * True when every conversation with a team is in its team's partition of the account activity index (AP62,
   * `keys.accountListPart`): accounts made since the team partitions exist. In older accounts a conversation with a
   * team not changed since may still be in a shard, so a team's page reads the shards too.
   */
  team_list_partitions?: boolean;
  /**
   * True when its report aggregates keep block items per field group (six UTC hours) instead of hour items
   * (`keys.reportPart`): accounts made since they exist, or rebuilt since (`npm run reports:rebuild`).
   */
  report_blocks?: boolean;
  /**
   * True when the folds keep its grouped report items (every member of a family of series in one item per day and
   * member group, `keys.reportGroupDay`) and the per-row report routes read them: accounts made since they exist,
   * or rebuilt since.
   */
  report_groups?: boolean;
}

export type Role = 'administrator' | 'agent';

export interface AccountUserRecord {
  id: number;
  account_id: number;
  user_id: number;
  role: Role;
  inviter_id: number | null;
  created_at: number;
  updated_at: number;
  active_at: number | null;
  availability: 'online' | 'offline' | 'busy';
  auto_offline: boolean;
  custom_role_id: number | null;
  agent_capacity_policy_id: number | null;
}

export interface UserRecord {
  id: number;
  name: string;
  display_name: string | null;
  email: string;
  password_hash: string | null;
  custom_attributes: Record<string, unknown>;
  ui_settings: Record<string, unknown>;
  message_signature: string | null;
  pubsub_token: string;
  avatar_url: string;
  sealed_token: string;
  token_hash: string;
  created_by_app: number | null;
  created_at: number;
  updated_at: number;
}

export interface AgentBotRecord {
  id: number;
  name: string;
  description: string | null;
  outgoing_url: string | null;
  thumbnail: string;
  bot_type: string;
  bot_config: Record<string, unknown>;
  account_id: number | null;
  sealed_token: string;
  token_hash: string;
  created_by_app: number | null;
  created_at: number;
  updated_at: number;
  /** Moves on with every write (absent on bots written before it existed). */
  version?: number;
}
