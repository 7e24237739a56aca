// An automation rule as stored: the events, operators and shapes its validator (shared/domain/automation/catalog.ts)
// accepts.

export const AUTOMATION_EVENTS = [
  'conversation_created',
  'conversation_updated',
  'conversation_opened',
  'conversation_resolved',
  'message_created',
] as const;
export type AutomationEvent = (typeof AUTOMATION_EVENTS)[number];

export const FILTER_OPERATORS = [
  'equal_to',
  'not_equal_to',
  'contains',
  'does_not_contain',
  'starts_with',
  'is_present',
  'is_not_present',
  'is_greater_than',
  'is_less_than',
  'days_before',
  'attribute_changed',
] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

export const CUSTOM_ATTRIBUTE_TYPES = ['conversation_attribute', 'contact_attribute'] as const;

export type Scalar = string | number | boolean;

export interface Condition {
  attribute_key: string;
  filter_operator: FilterOperator;
  values: Scalar[] | { from: Scalar[]; to: Scalar[] };
  query_operator?: string | null;
  custom_attribute_type?: (typeof CUSTOM_ATTRIBUTE_TYPES)[number];
}

export interface Action {
  action_name: string;
  action_params: unknown[];
}

export interface AutomationRuleRecord {
  id: number;
  account_id: number;
  name: string;
  description: string | null;
  event_name: AutomationEvent;
  conditions: Condition[];
  actions: Action[];
  active: boolean;
  /** Unix seconds (Chatwoot's `created_on`). */
  created_on: number;
  updated_at: number;
  version: number;
}
