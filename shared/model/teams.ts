export interface TeamRecord {
  id: number;
  account_id: number;
  /** Stored lower-case, as Chatwoot does. */
  name: string;
  description: string | null;
  allow_auto_assign: boolean;
  created_at: number;
  updated_at: number;
  /** Optimistic concurrency: every write is conditioned on the version read. */
  version: number;
}

export interface TeamMemberRecord {
  account_id: number;
  team_id: number;
  user_id: number;
  created_at: number;
}
