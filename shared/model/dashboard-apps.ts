export interface DashboardAppRecord {
  id: number;
  account_id: number;
  user_id: number;
  title: string;
  /** What the dashboard (or app) shows beside a conversation: frames of these URLs. */
  content: { type: 'frame'; url: string }[];
  created_at: number;
  updated_at: number;
  version: number;
}
