import type { Action } from './automation.ts';

export type MacroVisibility = 'personal' | 'global';

export interface MacroRecord {
  id: number;
  account_id: number;
  name: string;
  visibility: MacroVisibility;
  created_by_id: number;
  updated_by_id: number;
  actions: Action[];
  created_at: number;
  updated_at: number;
  version: number;
}
