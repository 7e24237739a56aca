/** Chatwoot's `custom_attribute_definitions` enums, in their integer order (the API takes either form). */
export const ATTRIBUTE_MODELS = ['conversation_attribute', 'contact_attribute'] as const;
export const DISPLAY_TYPES = ['text', 'number', 'currency', 'percent', 'link', 'date', 'list', 'checkbox'] as const;

export type AttributeModel = (typeof ATTRIBUTE_MODELS)[number];
export type DisplayType = (typeof DISPLAY_TYPES)[number];

/** Keys a definition may not take on create: Chatwoot's standard attributes of each model. */
export const STANDARD_ATTRIBUTES: Record<AttributeModel, readonly string[]> = {
  conversation_attribute: [
    'status',
    'priority',
    'assignee_id',
    'inbox_id',
    'team_id',
    'display_id',
    'campaign_id',
    'labels',
    'browser_language',
    'country_code',
    'referer',
    'created_at',
    'last_activity_at',
  ],
  contact_attribute: [
    'name',
    'email',
    'phone_number',
    'identifier',
    'country_code',
    'city',
    'company_name',
    'created_at',
    'last_activity_at',
    'referer',
    'blocked',
  ],
};

/** A custom attribute definition. Timestamps are ISO-8601 strings, as Chatwoot renders them here. */
export interface AttributeDefinitionRecord {
  id: number;
  account_id: number;
  attribute_display_name: string;
  attribute_display_type: DisplayType;
  attribute_description: string | null;
  attribute_key: string;
  attribute_model: AttributeModel;
  regex_pattern: string | null;
  regex_cue: string | null;
  attribute_values: string[];
  created_at: string;
  updated_at: string;
  version: number;
}
