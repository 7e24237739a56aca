import * as v from 'valibot';

// The integration apps Chatwoot lists (config/integration/apps.yml), with what their hooks may hold.
// This service stores hooks and lists them; it runs none of these integrations itself.

const Str = v.string('must be a string');

export interface AppDefinition {
  id: string;
  name: string;
  description: string;
  hook_type: 'account' | 'inbox';
  allow_multiple_hooks: boolean;
  /** External redirect the dashboard opens to connect the app (`action`). */
  action?: string;
  /** Setting keys safe to show administrators; the rest (keys, tokens, credentials) are never shown. */
  visible_properties: string[];
  /** The settings a hook of this app holds (Chatwoot's settings_json_schema); undefined = any object. */
  settings?: v.GenericSchema<unknown, Record<string, unknown>>;
  /** Not stored as hooks here: shown, but `POST hooks` refuses them. */
  managedElsewhere?: boolean;
}

export const APPS: AppDefinition[] = [
  {
    id: 'webhook',
    name: 'Webhooks',
    description: 'Send events of your account to your own endpoints as they happen.',
    hook_type: 'account',
    allow_multiple_hooks: true,
    action: '/webhook',
    visible_properties: [],
    managedElsewhere: true,
  },
  {
    id: 'dashboard_apps',
    name: 'Dashboard Apps',
    description: 'Embed your own application in the conversation view.',
    hook_type: 'account',
    allow_multiple_hooks: true,
    visible_properties: [],
    managedElsewhere: true,
  },
  {
    id: 'openai',
    name: 'OpenAI',
    description: 'Reply suggestions, summaries and rewrites with OpenAI models.',
    hook_type: 'account',
    allow_multiple_hooks: false,
    action: '/openai',
    visible_properties: [],
    settings: v.strictObject({ api_key: Str }),
  },
  {
    id: 'linear',
    name: 'Linear',
    description: 'Create and link Linear issues from conversations.',
    hook_type: 'account',
    allow_multiple_hooks: false,
    action: 'https://linear.app/oauth/authorize',
    visible_properties: [],
  },
  {
    id: 'notion',
    name: 'Notion',
    description: 'Use Notion pages as a knowledge source.',
    hook_type: 'account',
    allow_multiple_hooks: false,
    visible_properties: [],
  },
  {
    id: 'slack',
    name: 'Slack',
    description: 'Follow and answer conversations from a Slack channel.',
    hook_type: 'account',
    allow_multiple_hooks: false,
    action: 'https://slack.com/oauth/v2/authorize',
    visible_properties: ['channel_name', 'message_mode'],
    settings: v.object({
      channel_name: v.optional(Str),
      message_mode: v.optional(v.picklist(['two_way', 'alert'], 'must be two_way or alert')),
    }),
  },
  {
    id: 'dialogflow',
    name: 'Dialogflow',
    description: 'Let a Dialogflow agent answer an inbox before a human does.',
    hook_type: 'inbox',
    allow_multiple_hooks: true,
    action: '/dialogflow',
    visible_properties: ['project_id', 'region', 'language_code'],
    settings: v.strictObject({
      project_id: Str,
      credentials: v.record(v.string(), v.unknown(), 'must be an object'),
      region: v.optional(Str),
      language_code: v.optional(Str),
    }),
  },
  {
    id: 'google_translate',
    name: 'Google Translate',
    description: 'Translate messages with Google Cloud Translation.',
    hook_type: 'account',
    allow_multiple_hooks: false,
    action: '/google_translate',
    visible_properties: ['project_id'],
    settings: v.strictObject({ project_id: Str, credentials: v.record(v.string(), v.unknown(), 'must be an object') }),
  },
  {
    id: 'dyte',
    name: 'Cloudflare RealtimeKit',
    description: 'Start video calls from a conversation.',
    hook_type: 'account',
    allow_multiple_hooks: false,
    action: '/dyte',
    visible_properties: ['account_id', 'app_id'],
    settings: v.strictObject({ account_id: Str, app_id: Str, api_token: Str }),
  },
  {
    id: 'shopify',
    name: 'Shopify',
    description: 'See the orders of a contact from your Shopify store.',
    hook_type: 'account',
    allow_multiple_hooks: false,
    visible_properties: [],
  },
];

export const appById = (id: string) => APPS.find((a) => a.id === id);
