// THE route table: the one list of endpoints. The CDK stack makes one Lambda and its API routes per
// row, the local runtime routes requests by it, and the bench measures every row.

/** `ANY` only for the catch-all `$default` route. */
export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE' | 'ANY';

/** Which of the three interfaces (or the service's own) a route belongs to. */
export type Interface = 'account' | 'platform' | 'public' | 'system';

/**
 * IAM access class; functions of one class share a role (least privilege per class, not per route,
 * so the stack stays far below CloudFormation's resource limit).
 *  - read: table reads
 *  - write: table reads and writes
 *  - tokens: write, and the token key secret (routes that create or show access tokens)
 *  - uploads: write, the avatar bucket, and the token key secret (the profile answers its token)
 *  - channels: read, and sending to the channel-inbound queue (providers' webhooks, docs/channels.md)
 *
 * Every class reads the token key secret: sealed secrets are opened where they are read, and file links
 * are signed with a key derived from it (shared/storage/file-urls.ts).
 */
export type AccessClass = 'read' | 'write' | 'tokens' | 'uploads' | 'channels';

export interface Route {
  /** More than one method when Chatwoot takes several for one action (PATCH and PUT for update). */
  method: Method | Method[];
  /** API Gateway path, without a trailing slash (a request with one reaches the same route). */
  path: string;
  /** Handler module, exporting `handler`. */
  handler: string;
  api: Interface;
  access: AccessClass;
}

const P = '/platform/api/v1';

export const DEFAULT_ROUTE = '$default';

export const routes: Route[] = [
  { method: 'GET', path: '/health', handler: 'functions/system/health.ts', api: 'system', access: 'read' },
  // Chatwoot's service status (version, queue and data services); needs the queues' URLs (service-stack).
  { method: 'GET', path: '/api', handler: 'functions/system/api.ts', api: 'system', access: 'read' },
  // The OpenAPI 3.1 document of every route here (openapi.json, written by `npm run docs`).
  { method: 'GET', path: '/api/openapi.json', handler: 'functions/system/openapi.ts', api: 'system', access: 'read' },
  // Everything no other row matches: our 404 error body instead of API Gateway's own.
  { method: 'ANY', path: DEFAULT_ROUTE, handler: 'functions/system/not-found.ts', api: 'system', access: 'read' },
  // Stored files (attachments, avatars) by signed, expiring link only (shared/storage/file-urls.ts): Chatwoot's blob path.
  {
    method: 'GET',
    path: '/rails/active_storage/blobs/redirect/{signed_id}/{filename}',
    handler: 'functions/system/files/redirect.ts',
    api: 'system',
    access: 'uploads',
  },
  // The web widget's browser code (web/widget): loader, chat page, its hashed assets, a demo host page.
  { method: 'GET', path: '/packs/js/sdk.js', handler: 'functions/system/widget/sdk.ts', api: 'system', access: 'read' },
  { method: 'GET', path: '/widget', handler: 'functions/system/widget/page.ts', api: 'system', access: 'read' },
  { method: 'GET', path: '/widget/assets/{file}', handler: 'functions/system/widget/asset.ts', api: 'system', access: 'read' },
  { method: 'GET', path: '/widget/demo', handler: 'functions/system/widget/demo.ts', api: 'system', access: 'read' },

  // Messaging providers' webhooks, on Chatwoot's paths (docs/channels.md): the inbox by one key read, the signature
  // checked, the payload queued (channel-inbound), answered as the provider expects.
  {
    method: ['GET', 'POST'],
    path: '/webhooks/whatsapp/{phone_number}',
    handler: 'functions/channels/whatsapp.ts',
    api: 'system',
    access: 'channels',
  },
  { method: 'POST', path: '/webhooks/sms/{phone_number}', handler: 'functions/channels/sms.ts', api: 'system', access: 'channels' },
  { method: 'POST', path: '/twilio/callback', handler: 'functions/channels/twilio-callback.ts', api: 'system', access: 'channels' },
  {
    method: 'POST',
    path: '/twilio/delivery_status',
    handler: 'functions/channels/twilio-delivery-status.ts',
    api: 'system',
    access: 'channels',
  },

  // Incoming mail through Rails' ActionMailbox relay ingress (basic auth, raw RFC 822 body), as Chatwoot takes it
  // (docs/mail.md#ways-in): routed by its headers and queued (channel-inbound).
  {
    method: 'POST',
    path: '/rails/action_mailbox/relay/inbound_emails',
    handler: 'functions/channels/email-relay.ts',
    api: 'system',
    access: 'channels',
  },
  // The path's value is the bot's id (what the service registers) or, as Chatwoot registers it, the bot token.
  { method: 'POST', path: '/webhooks/telegram/{bot_token}', handler: 'functions/channels/telegram.ts', api: 'system', access: 'channels' },
  { method: 'POST', path: '/webhooks/line/{line_channel_id}', handler: 'functions/channels/line.ts', api: 'system', access: 'channels' },
  // Messenger: every page's webhooks on one path (the facebook-messenger gem's), signed with the Meta app's secret.
  { method: ['GET', 'POST'], path: '/bot', handler: 'functions/channels/facebook.ts', api: 'system', access: 'channels' },
  {
    method: ['GET', 'POST'],
    path: '/webhooks/instagram',
    handler: 'functions/channels/instagram.ts',
    api: 'system',
    access: 'channels',
  },
  // Instagram's OAuth redirect back, unauthenticated (its signed `state` names the account): the Instagram-login inbox
  // created or reauthorized (docs/channels.md#instagram-login).
  {
    method: 'GET',
    path: '/instagram/callback',
    handler: 'functions/channels/instagram-callback.ts',
    api: 'system',
    // It writes the inbox (the `channels` class only reads the table).
    access: 'write',
  },

  // Sign-in (devise_token_auth, mounted at /auth as Chatwoot does)
  { method: 'POST', path: '/auth/sign_in', handler: 'functions/auth/sign-in.ts', api: 'account', access: 'tokens' },
  { method: 'GET', path: '/auth/validate_token', handler: 'functions/auth/validate-token.ts', api: 'account', access: 'tokens' },
  { method: 'DELETE', path: '/auth/sign_out', handler: 'functions/auth/sign-out.ts', api: 'account', access: 'write' },
  { method: 'POST', path: '/auth/password', handler: 'functions/auth/password.ts', api: 'account', access: 'tokens' },
  { method: 'PUT', path: '/auth/password', handler: 'functions/auth/reset-password.ts', api: 'account', access: 'tokens' },

  // Account interface outside an account
  { method: 'GET', path: '/api/v1/profile', handler: 'functions/api/profile/show.ts', api: 'account', access: 'tokens' },
  { method: ['PATCH', 'PUT'], path: '/api/v1/profile', handler: 'functions/api/profile/update.ts', api: 'account', access: 'uploads' },
  {
    method: 'DELETE',
    path: '/api/v1/profile/avatar',
    handler: 'functions/api/profile/avatar/destroy.ts',
    api: 'account',
    access: 'tokens',
  },
  {
    method: 'POST',
    path: '/api/v1/profile/availability',
    handler: 'functions/api/profile/availability.ts',
    api: 'account',
    access: 'tokens',
  },
  {
    method: 'POST',
    path: '/api/v1/notification_subscriptions',
    handler: 'functions/api/notification-subscriptions/create.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'DELETE',
    path: '/api/v1/notification_subscriptions',
    handler: 'functions/api/notification-subscriptions/destroy.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'PUT',
    path: '/api/v1/profile/set_active_account',
    handler: 'functions/api/profile/set-active-account.ts',
    api: 'account',
    access: 'write',
  },

  // Account interface: the account itself
  { method: 'GET', path: '/api/v1/accounts/{account_id}', handler: 'functions/api/accounts/show.ts', api: 'account', access: 'read' },
  {
    method: ['PATCH', 'PUT'],
    path: '/api/v1/accounts/{account_id}',
    handler: 'functions/api/accounts/update.ts',
    api: 'account',
    access: 'write',
  },

  // ── Account interface I (issue: inboxes, contacts, conversations, messages, teams, counts) ──
  // inboxes + inbox members + teams + agents (rows added here)
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/inboxes',
    handler: 'functions/api/inboxes/index.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/inboxes',
    handler: 'functions/api/inboxes/create.ts',
    api: 'account',
    access: 'uploads',
  },
  // A Facebook page as an inbox, with the tokens the dashboard's Facebook login produced (docs/channels.md#facebook-messenger).
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/callbacks/register_facebook_page',
    handler: 'functions/api/callbacks/register-facebook-page.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/callbacks/facebook_pages',
    handler: 'functions/api/callbacks/facebook-pages.ts',
    api: 'account',
    access: 'read',
  },
  // Instagram's login URL for an Instagram-login inbox (docs/channels.md#instagram-login).
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/instagram/authorization',
    handler: 'functions/api/instagram/authorization.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/callbacks/reauthorize_page',
    handler: 'functions/api/callbacks/reauthorize-page.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/inboxes/{id}',
    handler: 'functions/api/inboxes/show.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: ['PATCH', 'PUT'],
    path: '/api/v1/accounts/{account_id}/inboxes/{id}',
    handler: 'functions/api/inboxes/update.ts',
    api: 'account',
    access: 'uploads',
  },
  {
    method: 'DELETE',
    path: '/api/v1/accounts/{account_id}/inboxes/{id}',
    handler: 'functions/api/inboxes/destroy.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'DELETE',
    path: '/api/v1/accounts/{account_id}/inboxes/{id}/avatar',
    handler: 'functions/api/inboxes/avatar/destroy.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/inboxes/{id}/agent_bot',
    handler: 'functions/api/inboxes/agent-bot.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/channels/twilio_channel',
    handler: 'functions/api/channels/twilio-channel.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/inboxes/{id}/sync_templates',
    handler: 'functions/api/inboxes/sync-templates.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/inboxes/{id}/set_agent_bot',
    handler: 'functions/api/inboxes/set-agent-bot.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/inbox_members',
    handler: 'functions/api/inbox-members/create.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: ['PATCH', 'PUT'],
    path: '/api/v1/accounts/{account_id}/inbox_members',
    handler: 'functions/api/inbox-members/update.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'DELETE',
    path: '/api/v1/accounts/{account_id}/inbox_members',
    handler: 'functions/api/inbox-members/destroy.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/inbox_members/{inbox_id}',
    handler: 'functions/api/inbox-members/show.ts',
    api: 'account',
    access: 'read',
  },
  { method: 'GET', path: '/api/v1/accounts/{account_id}/teams', handler: 'functions/api/teams/index.ts', api: 'account', access: 'read' },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/teams',
    handler: 'functions/api/teams/create.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/teams/{id}',
    handler: 'functions/api/teams/show.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: ['PATCH', 'PUT'],
    path: '/api/v1/accounts/{account_id}/teams/{id}',
    handler: 'functions/api/teams/update.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'DELETE',
    path: '/api/v1/accounts/{account_id}/teams/{id}',
    handler: 'functions/api/teams/destroy.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/teams/{team_id}/team_members',
    handler: 'functions/api/team-members/index.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/teams/{team_id}/team_members',
    handler: 'functions/api/team-members/create.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: ['PATCH', 'PUT'],
    path: '/api/v1/accounts/{account_id}/teams/{team_id}/team_members',
    handler: 'functions/api/team-members/update.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'DELETE',
    path: '/api/v1/accounts/{account_id}/teams/{team_id}/team_members',
    handler: 'functions/api/team-members/destroy.ts',
    api: 'account',
    access: 'write',
  },
  { method: 'GET', path: '/api/v1/accounts/{account_id}/agents', handler: 'functions/api/agents/index.ts', api: 'account', access: 'read' },
  // global search (Chatwoot's SearchService): contacts, conversations and messages
  { method: 'GET', path: '/api/v1/accounts/{account_id}/search', handler: 'functions/api/search/index.ts', api: 'account', access: 'read' },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/search/contacts',
    handler: 'functions/api/search/contacts.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/search/conversations',
    handler: 'functions/api/search/conversations.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/search/messages',
    handler: 'functions/api/search/messages.ts',
    api: 'account',
    access: 'read',
  },
  // contacts + contact labels (rows added here)
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/contacts',
    handler: 'functions/api/contacts/index.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/contacts/search',
    handler: 'functions/api/contacts/search.ts',
    api: 'account',
    access: 'read',
  },
  // Chatwoot's filter language (shared/domain/filters): reads only, however many conditions.
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/contacts/filter',
    handler: 'functions/api/contacts/filter.ts',
    api: 'account',
    access: 'read',
  },
  // Chatwoot's ContactMergeAction as idempotent steps (shared/domain/contacts/merge.ts); any member, as in Chatwoot.
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/actions/contact_merge',
    handler: 'functions/api/actions/contact-merge.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/contacts',
    handler: 'functions/api/contacts/create.ts',
    api: 'account',
    access: 'uploads',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/contacts/{id}',
    handler: 'functions/api/contacts/show.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: ['PATCH', 'PUT'],
    path: '/api/v1/accounts/{account_id}/contacts/{id}',
    handler: 'functions/api/contacts/update.ts',
    api: 'account',
    access: 'uploads',
  },
  {
    method: 'DELETE',
    path: '/api/v1/accounts/{account_id}/contacts/{id}',
    handler: 'functions/api/contacts/destroy.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/contacts/{id}/destroy_custom_attributes',
    handler: 'functions/api/contacts/destroy-custom-attributes.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'DELETE',
    path: '/api/v1/accounts/{account_id}/contacts/{id}/avatar',
    handler: 'functions/api/contacts/avatar/destroy.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/contacts/{id}/labels',
    handler: 'functions/api/contacts/labels/index.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/contacts/{id}/labels',
    handler: 'functions/api/contacts/labels/create.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/contacts/{id}/contact_inboxes',
    handler: 'functions/api/contacts/contact-inboxes/create.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/contacts/{id}/contactable_inboxes',
    handler: 'functions/api/contacts/contactable-inboxes/index.ts',
    api: 'account',
    access: 'read',
  },
  // conversations + messages + counts (rows added here)
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/conversations',
    handler: 'functions/api/conversations/index.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/conversations',
    handler: 'functions/api/conversations/create.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/conversations/meta',
    handler: 'functions/api/conversations/meta.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/conversations/filter',
    handler: 'functions/api/conversations/filter.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/conversations/search',
    handler: 'functions/api/conversations/search.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/conversations/{conversation_id}',
    handler: 'functions/api/conversations/show.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: ['PATCH', 'PUT'],
    path: '/api/v1/accounts/{account_id}/conversations/{conversation_id}',
    handler: 'functions/api/conversations/update.ts',
    api: 'account',
    access: 'write',
  },
  // Deletes its messages' stored files.
  {
    method: 'DELETE',
    path: '/api/v1/accounts/{account_id}/conversations/{conversation_id}',
    handler: 'functions/api/conversations/destroy.ts',
    api: 'account',
    access: 'uploads',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/conversations/{conversation_id}/attachments',
    handler: 'functions/api/conversations/attachments.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/conversations/{conversation_id}/toggle_status',
    handler: 'functions/api/conversations/toggle-status.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/conversations/{conversation_id}/toggle_priority',
    handler: 'functions/api/conversations/toggle-priority.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/conversations/{conversation_id}/toggle_typing_status',
    handler: 'functions/api/conversations/toggle-typing-status.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/conversations/{conversation_id}/custom_attributes',
    handler: 'functions/api/conversations/custom-attributes.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/conversations/{conversation_id}/update_last_seen',
    handler: 'functions/api/conversations/update-last-seen.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/conversations/{conversation_id}/assignments',
    handler: 'functions/api/conversations/assignments/create.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/conversations/{conversation_id}/labels',
    handler: 'functions/api/conversations/labels/index.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/conversations/{conversation_id}/labels',
    handler: 'functions/api/conversations/labels/create.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/conversations/{conversation_id}/messages',
    handler: 'functions/api/conversations/messages/index.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/conversations/{conversation_id}/messages',
    handler: 'functions/api/conversations/messages/create.ts',
    api: 'account',
    access: 'uploads',
  },
  // The google_translate integration (calls Google; the message keeps the translation).
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/conversations/{conversation_id}/messages/{message_id}/retry',
    handler: 'functions/api/conversations/messages/retry.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/conversations/{conversation_id}/messages/{message_id}/translate',
    handler: 'functions/api/conversations/messages/translate.ts',
    api: 'account',
    access: 'write',
  },
  // Captain's editor tasks (the mobile app's and dashboard's copilot): an OpenAI-compatible model with the account's OpenAI key.
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/captain/tasks/rewrite',
    handler: 'functions/api/captain/tasks/rewrite.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/captain/tasks/summarize',
    handler: 'functions/api/captain/tasks/summarize.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/captain/tasks/reply_suggestion',
    handler: 'functions/api/captain/tasks/reply-suggestion.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/captain/tasks/label_suggestion',
    handler: 'functions/api/captain/tasks/label-suggestion.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/captain/tasks/follow_up',
    handler: 'functions/api/captain/tasks/follow-up.ts',
    api: 'account',
    access: 'read',
  },
  // ActiveStorage direct uploads (files above the multipart body limit, up to 40 MB); messages name them by signed_id.
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/conversations/{conversation_id}/direct_uploads',
    handler: 'functions/api/conversations/direct-uploads.ts',
    api: 'account',
    access: 'uploads',
  },
  {
    method: ['PATCH', 'PUT'],
    path: '/api/v1/accounts/{account_id}/conversations/{conversation_id}/messages/{message_id}',
    handler: 'functions/api/conversations/messages/update.ts',
    api: 'account',
    access: 'write',
  },
  // Deletes the message's stored files.
  {
    method: 'DELETE',
    path: '/api/v1/accounts/{account_id}/conversations/{conversation_id}/messages/{message_id}',
    handler: 'functions/api/conversations/messages/destroy.ts',
    api: 'account',
    access: 'uploads',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/contacts/{id}/conversations',
    handler: 'functions/api/contacts/conversations/index.ts',
    api: 'account',
    access: 'read',
  },

  // ── Account interface II (custom filters, automation rules, webhooks, agent bots, labels) ──
  // labels (rows added here)
  { method: 'GET', path: '/api/v1/accounts/{account_id}/labels', handler: 'functions/api/labels/index.ts', api: 'account', access: 'read' },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/labels',
    handler: 'functions/api/labels/create.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/labels/{id}',
    handler: 'functions/api/labels/show.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: ['PATCH', 'PUT'],
    path: '/api/v1/accounts/{account_id}/labels/{id}',
    handler: 'functions/api/labels/update.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'DELETE',
    path: '/api/v1/accounts/{account_id}/labels/{id}',
    handler: 'functions/api/labels/destroy.ts',
    api: 'account',
    access: 'write',
  },
  // custom filters + automation rules + webhooks + account agent bots (rows added here)
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/custom_filters',
    handler: 'functions/api/custom-filters/index.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/custom_filters',
    handler: 'functions/api/custom-filters/create.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/custom_filters/{id}',
    handler: 'functions/api/custom-filters/show.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: ['PATCH', 'PUT'],
    path: '/api/v1/accounts/{account_id}/custom_filters/{id}',
    handler: 'functions/api/custom-filters/update.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'DELETE',
    path: '/api/v1/accounts/{account_id}/custom_filters/{id}',
    handler: 'functions/api/custom-filters/destroy.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/webhooks',
    handler: 'functions/api/webhooks/index.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/webhooks',
    handler: 'functions/api/webhooks/create.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: ['PATCH', 'PUT'],
    path: '/api/v1/accounts/{account_id}/webhooks/{id}',
    handler: 'functions/api/webhooks/update.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'DELETE',
    path: '/api/v1/accounts/{account_id}/webhooks/{id}',
    handler: 'functions/api/webhooks/destroy.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/webhooks/{id}/deliveries',
    handler: 'functions/api/webhooks/deliveries.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/automation_rules',
    handler: 'functions/api/automation-rules/index.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/automation_rules',
    handler: 'functions/api/automation-rules/create.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/automation_rules/{id}',
    handler: 'functions/api/automation-rules/show.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: ['PATCH', 'PUT'],
    path: '/api/v1/accounts/{account_id}/automation_rules/{id}',
    handler: 'functions/api/automation-rules/update.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'DELETE',
    path: '/api/v1/accounts/{account_id}/automation_rules/{id}',
    handler: 'functions/api/automation-rules/destroy.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/automation_rules/{id}/clone',
    handler: 'functions/api/automation-rules/clone.ts',
    api: 'account',
    access: 'write',
  },
  // reports (aggregates kept by the events pipeline; administrators only)
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/reporting_events',
    handler: 'functions/api/reporting-events/index.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/conversations/{conversation_id}/reporting_events',
    handler: 'functions/api/conversations/reporting-events.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'GET',
    path: '/api/v2/accounts/{account_id}/reports',
    handler: 'functions/api/v2/reports/index.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'GET',
    path: '/api/v2/accounts/{account_id}/reports/summary',
    handler: 'functions/api/v2/reports/summary.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'GET',
    path: '/api/v2/accounts/{account_id}/reports/bot_summary',
    handler: 'functions/api/v2/reports/bot-summary.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'GET',
    path: '/api/v2/accounts/{account_id}/reports/conversations',
    handler: 'functions/api/v2/reports/conversations.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'GET',
    path: '/api/v2/accounts/{account_id}/reports/agents',
    handler: 'functions/api/v2/reports/agents.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'GET',
    path: '/api/v2/accounts/{account_id}/reports/inboxes',
    handler: 'functions/api/v2/reports/inboxes.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'GET',
    path: '/api/v2/accounts/{account_id}/reports/labels',
    handler: 'functions/api/v2/reports/labels.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'GET',
    path: '/api/v2/accounts/{account_id}/reports/teams',
    handler: 'functions/api/v2/reports/teams.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'GET',
    path: '/api/v2/accounts/{account_id}/summary_reports/agent',
    handler: 'functions/api/v2/summary-reports/agent.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'GET',
    path: '/api/v2/accounts/{account_id}/summary_reports/inbox',
    handler: 'functions/api/v2/summary-reports/inbox.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'GET',
    path: '/api/v2/accounts/{account_id}/summary_reports/team',
    handler: 'functions/api/v2/summary-reports/team.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'GET',
    path: '/api/v2/accounts/{account_id}/summary_reports/label',
    handler: 'functions/api/v2/summary-reports/label.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'GET',
    path: '/api/v2/accounts/{account_id}/summary_reports/channel',
    handler: 'functions/api/v2/summary-reports/channel.ts',
    api: 'account',
    access: 'read',
  },
  // reports v2, the rest (issue 32: traffic, bot metrics, distributions, matrix, year in review, live reports)
  {
    method: 'GET',
    path: '/api/v2/accounts/{account_id}/reports/conversations_summary',
    handler: 'functions/api/v2/reports/conversations-summary.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'GET',
    path: '/api/v2/accounts/{account_id}/reports/conversation_traffic',
    handler: 'functions/api/v2/reports/conversation-traffic.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'GET',
    path: '/api/v2/accounts/{account_id}/reports/bot_metrics',
    handler: 'functions/api/v2/reports/bot-metrics.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'GET',
    path: '/api/v2/accounts/{account_id}/reports/first_response_time_distribution',
    handler: 'functions/api/v2/reports/first-response-time-distribution.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'GET',
    path: '/api/v2/accounts/{account_id}/reports/inbox_label_matrix',
    handler: 'functions/api/v2/reports/inbox-label-matrix.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'GET',
    path: '/api/v2/accounts/{account_id}/reports/outgoing_messages_count',
    handler: 'functions/api/v2/reports/outgoing-messages-count.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'GET',
    path: '/api/v2/accounts/{account_id}/year_in_review',
    handler: 'functions/api/v2/year-in-review/show.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'GET',
    path: '/api/v2/accounts/{account_id}/live_reports/conversation_metrics',
    handler: 'functions/api/v2/live-reports/conversation-metrics.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'GET',
    path: '/api/v2/accounts/{account_id}/live_reports/grouped_conversation_metrics',
    handler: 'functions/api/v2/live-reports/grouped-conversation-metrics.ts',
    api: 'account',
    access: 'read',
  },

  // CSAT (docs/csat.md): the survey a resolution sends, its page and public API (the conversation's uuid is the
  // credential), and the responses, metrics and CSV download for administrators (pipeline-kept items and aggregates).
  {
    method: 'GET',
    path: '/survey/responses/{conversation_uuid}',
    handler: 'functions/system/survey/page.ts',
    api: 'system',
    access: 'read',
  },
  {
    method: 'GET',
    path: '/public/api/v1/csat_survey/{conversation_uuid}',
    handler: 'functions/public/csat-survey/show.ts',
    api: 'public',
    access: 'read',
  },
  {
    method: ['PATCH', 'PUT'],
    path: '/public/api/v1/csat_survey/{conversation_uuid}',
    handler: 'functions/public/csat-survey/update.ts',
    api: 'public',
    access: 'write',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/csat_survey_responses',
    handler: 'functions/api/csat-survey-responses/index.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/csat_survey_responses/metrics',
    handler: 'functions/api/csat-survey-responses/metrics.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/csat_survey_responses/download',
    handler: 'functions/api/csat-survey-responses/download.ts',
    api: 'account',
    access: 'read',
  },

  // SLA (docs/sla.md): policies (agents read, administrators write), and the applied SLAs' misses, metrics and CSV
  // for administrators (the pipeline applies and evaluates them; a scheduled wake-up per deadline finds a miss on time).
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/sla_policies',
    handler: 'functions/api/sla-policies/index.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/sla_policies',
    handler: 'functions/api/sla-policies/create.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/sla_policies/{id}',
    handler: 'functions/api/sla-policies/show.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: ['PATCH', 'PUT'],
    path: '/api/v1/accounts/{account_id}/sla_policies/{id}',
    handler: 'functions/api/sla-policies/update.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'DELETE',
    path: '/api/v1/accounts/{account_id}/sla_policies/{id}',
    handler: 'functions/api/sla-policies/destroy.ts',
    api: 'account',
    access: 'write',
  },

  // notifications (created by the events pipeline) and their settings
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/notifications',
    handler: 'functions/api/notifications/index.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/notifications/unread_count',
    handler: 'functions/api/notifications/unread-count.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/notifications/read_all',
    handler: 'functions/api/notifications/read-all.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: ['PATCH', 'PUT'],
    path: '/api/v1/accounts/{account_id}/notifications/{id}',
    handler: 'functions/api/notifications/update.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'DELETE',
    path: '/api/v1/accounts/{account_id}/notifications/{id}',
    handler: 'functions/api/notifications/destroy.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/notifications/{id}/unread',
    handler: 'functions/api/notifications/unread.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/notification_settings',
    handler: 'functions/api/notification-settings/show.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: ['PATCH', 'PUT'],
    path: '/api/v1/accounts/{account_id}/notification_settings',
    handler: 'functions/api/notification-settings/update.ts',
    api: 'account',
    access: 'write',
  },
  // dashboard apps
  // campaigns (Chatwoot's CampaignsController: administrators only)
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/campaigns',
    handler: 'functions/api/campaigns/index.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/campaigns',
    handler: 'functions/api/campaigns/create.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/campaigns/{id}',
    handler: 'functions/api/campaigns/show.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: ['PATCH', 'PUT'],
    path: '/api/v1/accounts/{account_id}/campaigns/{id}',
    handler: 'functions/api/campaigns/update.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'DELETE',
    path: '/api/v1/accounts/{account_id}/campaigns/{id}',
    handler: 'functions/api/campaigns/destroy.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/dashboard_apps',
    handler: 'functions/api/dashboard-apps/index.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/dashboard_apps',
    handler: 'functions/api/dashboard-apps/create.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/dashboard_apps/{id}',
    handler: 'functions/api/dashboard-apps/show.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: ['PATCH', 'PUT'],
    path: '/api/v1/accounts/{account_id}/dashboard_apps/{id}',
    handler: 'functions/api/dashboard-apps/update.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'DELETE',
    path: '/api/v1/accounts/{account_id}/dashboard_apps/{id}',
    handler: 'functions/api/dashboard-apps/destroy.ts',
    api: 'account',
    access: 'write',
  },
  // macros
  { method: 'GET', path: '/api/v1/accounts/{account_id}/macros', handler: 'functions/api/macros/index.ts', api: 'account', access: 'read' },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/macros',
    handler: 'functions/api/macros/create.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/macros/{id}',
    handler: 'functions/api/macros/show.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: ['PATCH', 'PUT'],
    path: '/api/v1/accounts/{account_id}/macros/{id}',
    handler: 'functions/api/macros/update.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'DELETE',
    path: '/api/v1/accounts/{account_id}/macros/{id}',
    handler: 'functions/api/macros/destroy.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/macros/{id}/execute',
    handler: 'functions/api/macros/execute.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/agent_bots',
    handler: 'functions/api/agent-bots/index.ts',
    api: 'account',
    access: 'tokens',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/agent_bots',
    handler: 'functions/api/agent-bots/create.ts',
    api: 'account',
    access: 'tokens',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/agent_bots/{id}',
    handler: 'functions/api/agent-bots/show.ts',
    api: 'account',
    access: 'tokens',
  },
  {
    method: ['PATCH', 'PUT'],
    path: '/api/v1/accounts/{account_id}/agent_bots/{id}',
    handler: 'functions/api/agent-bots/update.ts',
    api: 'account',
    access: 'tokens',
  },
  {
    method: 'DELETE',
    path: '/api/v1/accounts/{account_id}/agent_bots/{id}',
    handler: 'functions/api/agent-bots/destroy.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'DELETE',
    path: '/api/v1/accounts/{account_id}/agent_bots/{id}/avatar',
    handler: 'functions/api/agent-bots/destroy-avatar.ts',
    api: 'account',
    access: 'tokens',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/agent_bots/{id}/reset_access_token',
    handler: 'functions/api/agent-bots/reset-access-token.ts',
    api: 'account',
    access: 'tokens',
  },

  // ── Account interface III (integrations: EvolutionAPI, n8n) (rows added here) ──
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/custom_attribute_definitions',
    handler: 'functions/api/custom-attribute-definitions/index.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/custom_attribute_definitions',
    handler: 'functions/api/custom-attribute-definitions/create.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/custom_attribute_definitions/{id}',
    handler: 'functions/api/custom-attribute-definitions/show.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: ['PATCH', 'PUT'],
    path: '/api/v1/accounts/{account_id}/custom_attribute_definitions/{id}',
    handler: 'functions/api/custom-attribute-definitions/update.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'DELETE',
    path: '/api/v1/accounts/{account_id}/custom_attribute_definitions/{id}',
    handler: 'functions/api/custom-attribute-definitions/destroy.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/canned_responses',
    handler: 'functions/api/canned-responses/index.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/canned_responses',
    handler: 'functions/api/canned-responses/create.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: ['PATCH', 'PUT'],
    path: '/api/v1/accounts/{account_id}/canned_responses/{id}',
    handler: 'functions/api/canned-responses/update.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'DELETE',
    path: '/api/v1/accounts/{account_id}/canned_responses/{id}',
    handler: 'functions/api/canned-responses/destroy.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/agents',
    handler: 'functions/api/agents/create.ts',
    api: 'account',
    access: 'tokens',
  },
  {
    method: ['PATCH', 'PUT'],
    path: '/api/v1/accounts/{account_id}/agents/{id}',
    handler: 'functions/api/agents/update.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'DELETE',
    path: '/api/v1/accounts/{account_id}/agents/{id}',
    handler: 'functions/api/agents/destroy.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/assignable_agents',
    handler: 'functions/api/assignable-agents/index.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/conversations/{conversation_id}/mute',
    handler: 'functions/api/conversations/mute.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/conversations/{conversation_id}/unmute',
    handler: 'functions/api/conversations/unmute.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/conversations/{conversation_id}/unread',
    handler: 'functions/api/conversations/unread.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/conversations/{conversation_id}/participants',
    handler: 'functions/api/conversations/participants/index.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/conversations/{conversation_id}/participants',
    handler: 'functions/api/conversations/participants/create.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: ['PATCH', 'PUT'],
    path: '/api/v1/accounts/{account_id}/conversations/{conversation_id}/participants',
    handler: 'functions/api/conversations/participants/update.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'DELETE',
    path: '/api/v1/accounts/{account_id}/conversations/{conversation_id}/participants',
    handler: 'functions/api/conversations/participants/destroy.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/bulk_actions',
    handler: 'functions/api/bulk-actions/create.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'GET',
    path: '/api/v1/accounts/{account_id}/integrations/apps',
    handler: 'functions/api/integrations/apps/index.ts',
    api: 'account',
    access: 'read',
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/{account_id}/integrations/hooks',
    handler: 'functions/api/integrations/hooks/create.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: ['PATCH', 'PUT'],
    path: '/api/v1/accounts/{account_id}/integrations/hooks/{id}',
    handler: 'functions/api/integrations/hooks/update.ts',
    api: 'account',
    access: 'write',
  },
  {
    method: 'DELETE',
    path: '/api/v1/accounts/{account_id}/integrations/hooks/{id}',
    handler: 'functions/api/integrations/hooks/destroy.ts',
    api: 'account',
    access: 'write',
  },

  // ── Public interface (rows added here) ──
  {
    method: 'GET',
    path: '/public/api/v1/inboxes/{inbox_identifier}',
    handler: 'functions/public/inboxes/show.ts',
    api: 'public',
    access: 'read',
  },
  {
    method: 'POST',
    path: '/public/api/v1/inboxes/{inbox_identifier}/contacts',
    handler: 'functions/public/contacts/create.ts',
    api: 'public',
    access: 'write',
  },
  {
    method: 'GET',
    path: '/public/api/v1/inboxes/{inbox_identifier}/contacts/{contact_identifier}',
    handler: 'functions/public/contacts/show.ts',
    api: 'public',
    access: 'write',
  },
  {
    method: ['PATCH', 'PUT'],
    path: '/public/api/v1/inboxes/{inbox_identifier}/contacts/{contact_identifier}',
    handler: 'functions/public/contacts/update.ts',
    api: 'public',
    access: 'write',
  },
  {
    method: 'GET',
    path: '/public/api/v1/inboxes/{inbox_identifier}/contacts/{contact_identifier}/conversations',
    handler: 'functions/public/conversations/index.ts',
    api: 'public',
    access: 'read',
  },
  {
    method: 'POST',
    path: '/public/api/v1/inboxes/{inbox_identifier}/contacts/{contact_identifier}/conversations',
    handler: 'functions/public/conversations/create.ts',
    api: 'public',
    access: 'write',
  },
  {
    method: 'GET',
    path: '/public/api/v1/inboxes/{inbox_identifier}/contacts/{contact_identifier}/conversations/{conversation_id}',
    handler: 'functions/public/conversations/show.ts',
    api: 'public',
    access: 'read',
  },
  {
    method: 'POST',
    path: '/public/api/v1/inboxes/{inbox_identifier}/contacts/{contact_identifier}/conversations/{conversation_id}/toggle_status',
    handler: 'functions/public/conversations/toggle-status.ts',
    api: 'public',
    access: 'write',
  },
  {
    method: 'POST',
    path: '/public/api/v1/inboxes/{inbox_identifier}/contacts/{contact_identifier}/conversations/{conversation_id}/toggle_typing',
    handler: 'functions/public/conversations/toggle-typing.ts',
    api: 'public',
    access: 'write',
  },
  {
    method: 'POST',
    path: '/public/api/v1/inboxes/{inbox_identifier}/contacts/{contact_identifier}/conversations/{conversation_id}/update_last_seen',
    handler: 'functions/public/conversations/update-last-seen.ts',
    api: 'public',
    access: 'write',
  },
  {
    method: 'GET',
    path: '/public/api/v1/inboxes/{inbox_identifier}/contacts/{contact_identifier}/conversations/{conversation_id}/messages',
    handler: 'functions/public/messages/index.ts',
    api: 'public',
    access: 'read',
  },
  {
    method: 'POST',
    path: '/public/api/v1/inboxes/{inbox_identifier}/contacts/{contact_identifier}/conversations/{conversation_id}/messages',
    handler: 'functions/public/messages/create.ts',
    api: 'public',
    access: 'uploads',
  },
  {
    method: ['PATCH', 'PUT'],
    path: '/public/api/v1/inboxes/{inbox_identifier}/contacts/{contact_identifier}/conversations/{conversation_id}/messages/{message_id}',
    handler: 'functions/public/messages/update.ts',
    api: 'public',
    access: 'write',
  },
  // The web widget's own API (website_token + X-Auth-Token JWT; reads the token key)
  { method: 'POST', path: '/api/v1/widget/config', handler: 'functions/widget/config.ts', api: 'public', access: 'tokens' },
  { method: 'POST', path: '/api/v1/widget/events', handler: 'functions/widget/events.ts', api: 'public', access: 'tokens' },
  {
    method: 'GET',
    path: '/api/v1/widget/conversations',
    handler: 'functions/widget/conversations/index.ts',
    api: 'public',
    access: 'tokens',
  },
  {
    method: 'POST',
    path: '/api/v1/widget/conversations',
    handler: 'functions/widget/conversations/create.ts',
    api: 'public',
    access: 'tokens',
  },
  {
    method: 'POST',
    path: '/api/v1/widget/conversations/toggle_typing',
    handler: 'functions/widget/conversations/toggle-typing.ts',
    api: 'public',
    access: 'tokens',
  },
  {
    method: 'POST',
    path: '/api/v1/widget/conversations/update_last_seen',
    handler: 'functions/widget/conversations/update-last-seen.ts',
    api: 'public',
    access: 'tokens',
  },
  {
    method: 'POST',
    path: '/api/v1/widget/conversations/set_custom_attributes',
    handler: 'functions/widget/conversations/set-custom-attributes.ts',
    api: 'public',
    access: 'tokens',
  },
  {
    method: 'POST',
    path: '/api/v1/widget/conversations/destroy_custom_attributes',
    handler: 'functions/widget/conversations/destroy-custom-attributes.ts',
    api: 'public',
    access: 'tokens',
  },
  {
    method: 'GET',
    path: '/api/v1/widget/conversations/toggle_status',
    handler: 'functions/widget/conversations/toggle-status.ts',
    api: 'public',
    access: 'tokens',
  },
  {
    method: 'POST',
    path: '/api/v1/widget/conversations/transcript',
    handler: 'functions/widget/conversations/transcript.ts',
    api: 'public',
    access: 'tokens',
  },
  { method: 'GET', path: '/api/v1/widget/messages', handler: 'functions/widget/messages/index.ts', api: 'public', access: 'tokens' },
  { method: 'POST', path: '/api/v1/widget/messages', handler: 'functions/widget/messages/create.ts', api: 'public', access: 'uploads' },
  {
    method: ['PATCH', 'PUT'],
    path: '/api/v1/widget/messages/{id}',
    handler: 'functions/widget/messages/update.ts',
    api: 'public',
    access: 'tokens',
  },
  { method: 'GET', path: '/api/v1/widget/contact', handler: 'functions/widget/contact/show.ts', api: 'public', access: 'tokens' },
  {
    method: ['PATCH', 'PUT'],
    path: '/api/v1/widget/contact',
    handler: 'functions/widget/contact/update.ts',
    api: 'public',
    access: 'tokens',
  },
  {
    method: 'PATCH',
    path: '/api/v1/widget/contact/set_user',
    handler: 'functions/widget/contact/set-user.ts',
    api: 'public',
    access: 'tokens',
  },
  {
    method: 'POST',
    path: '/api/v1/widget/contact/destroy_custom_attributes',
    handler: 'functions/widget/contact/destroy-custom-attributes.ts',
    api: 'public',
    access: 'tokens',
  },
  { method: 'GET', path: '/api/v1/widget/inbox_members', handler: 'functions/widget/inbox-members.ts', api: 'public', access: 'tokens' },
  { method: 'GET', path: '/api/v1/widget/campaigns', handler: 'functions/widget/campaigns.ts', api: 'public', access: 'tokens' },
  { method: 'POST', path: '/api/v1/widget/labels', handler: 'functions/widget/labels/create.ts', api: 'public', access: 'tokens' },
  { method: 'DELETE', path: '/api/v1/widget/labels/{id}', handler: 'functions/widget/labels/destroy.ts', api: 'public', access: 'tokens' },
  {
    method: 'POST',
    path: '/api/v1/widget/direct_uploads',
    handler: 'functions/widget/direct-uploads.ts',
    api: 'public',
    access: 'uploads',
  },

  // Platform interface (contract endpoints 10-12, docs/contract.md#endpoints, docs/chatwoot.md#platform-api)
  { method: 'GET', path: `${P}/accounts`, handler: 'functions/platform/accounts/index.ts', api: 'platform', access: 'read' },
  { method: 'POST', path: `${P}/accounts`, handler: 'functions/platform/accounts/create.ts', api: 'platform', access: 'write' },
  { method: 'GET', path: `${P}/accounts/{account_id}`, handler: 'functions/platform/accounts/show.ts', api: 'platform', access: 'read' },
  {
    method: ['PATCH', 'PUT'],
    path: `${P}/accounts/{account_id}`,
    handler: 'functions/platform/accounts/update.ts',
    api: 'platform',
    access: 'write',
  },
  {
    method: 'DELETE',
    path: `${P}/accounts/{account_id}`,
    handler: 'functions/platform/accounts/destroy.ts',
    api: 'platform',
    access: 'write',
  },

  {
    method: 'GET',
    path: `${P}/accounts/{account_id}/account_users`,
    handler: 'functions/platform/account-users/index.ts',
    api: 'platform',
    access: 'read',
  },
  {
    method: 'POST',
    path: `${P}/accounts/{account_id}/account_users`,
    handler: 'functions/platform/account-users/create.ts',
    api: 'platform',
    access: 'write',
  },
  {
    method: 'DELETE',
    path: `${P}/accounts/{account_id}/account_users`,
    handler: 'functions/platform/account-users/destroy.ts',
    api: 'platform',
    access: 'write',
  },

  { method: 'POST', path: `${P}/users`, handler: 'functions/platform/users/create.ts', api: 'platform', access: 'tokens' },
  { method: 'GET', path: `${P}/users/{id}`, handler: 'functions/platform/users/show.ts', api: 'platform', access: 'tokens' },
  { method: ['PATCH', 'PUT'], path: `${P}/users/{id}`, handler: 'functions/platform/users/update.ts', api: 'platform', access: 'tokens' },
  { method: 'DELETE', path: `${P}/users/{id}`, handler: 'functions/platform/users/destroy.ts', api: 'platform', access: 'write' },
  { method: 'POST', path: `${P}/users/{id}/token`, handler: 'functions/platform/users/token.ts', api: 'platform', access: 'tokens' },
  { method: 'GET', path: `${P}/users/{id}/login`, handler: 'functions/platform/users/login.ts', api: 'platform', access: 'write' },

  { method: 'GET', path: `${P}/agent_bots`, handler: 'functions/platform/agent-bots/index.ts', api: 'platform', access: 'tokens' },
  { method: 'POST', path: `${P}/agent_bots`, handler: 'functions/platform/agent-bots/create.ts', api: 'platform', access: 'tokens' },
  { method: 'GET', path: `${P}/agent_bots/{id}`, handler: 'functions/platform/agent-bots/show.ts', api: 'platform', access: 'tokens' },
  {
    method: ['PATCH', 'PUT'],
    path: `${P}/agent_bots/{id}`,
    handler: 'functions/platform/agent-bots/update.ts',
    api: 'platform',
    access: 'tokens',
  },
  { method: 'DELETE', path: `${P}/agent_bots/{id}`, handler: 'functions/platform/agent-bots/destroy.ts', api: 'platform', access: 'write' },
  // ── Help center (Chatwoot's portals, categories and articles; docs/help-center.md): portals named by slug,
  // administrators write, members read. Then the public pages, server-rendered HTML (a portal's custom domain too).
  ...helpCenterRoutes(),
];

export const methodsOf = (r: Route): Method[] => (Array.isArray(r.method) ? r.method : [r.method]);

/** API Gateway's route key of one method of a row (`$default` stands alone). */
export const routeKeyOf = (r: Route, method: Method): string => (r.path === DEFAULT_ROUTE ? DEFAULT_ROUTE : `${method} ${r.path}`);

/** Stable function name from the handler path: functions/platform/accounts/show.ts → platform-accounts-show. */
export const functionName = (r: Route): string =>
  r.handler
    .replace(/^functions\//, '')
    .replace(/\.ts$/, '')
    .replace(/\//g, '-');

/** Nested stack a route's function lives in: its interface and resource folder (keeps each stack small). */
export const stackGroup = (r: Route): string => {
  const parts = r.handler.replace(/\.ts$/, '').split('/');
  return parts.length > 3 ? `${parts[1]}-${parts[2]}` : parts[1];
};

/** The help center's rows (kept in one block). */
function helpCenterRoutes(): Route[] {
  const A = '/api/v1/accounts/{account_id}/portals';
  const F = 'functions/api/portals';
  const row = (method: Method | Method[], path: string, handler: string, access: AccessClass): Route => ({
    method,
    path,
    handler,
    api: 'account',
    access,
  });
  const pages = (path: string, handler: string): Route => ({
    method: 'GET',
    path,
    handler: `functions/system/help-center/${handler}.ts`,
    api: 'system',
    // The article page counts its view.
    access: handler === 'article' ? 'write' : 'read',
  });
  return [
    row('GET', A, `${F}/index.ts`, 'read'),
    row('POST', A, `${F}/create.ts`, 'write'),
    row('GET', `${A}/{id}`, `${F}/show.ts`, 'read'),
    row(['PATCH', 'PUT'], `${A}/{id}`, `${F}/update.ts`, 'write'),
    row('DELETE', `${A}/{id}`, `${F}/destroy.ts`, 'write'),
    row('PATCH', `${A}/{id}/archive`, `${F}/archive.ts`, 'write'),
    row('DELETE', `${A}/{id}/logo`, `${F}/logo.ts`, 'read'),
    row('GET', `${A}/{id}/ssl_status`, `${F}/ssl-status.ts`, 'read'),
    row('GET', `${A}/{id}/categories`, `${F}/categories/index.ts`, 'read'),
    row('POST', `${A}/{id}/categories`, `${F}/categories/create.ts`, 'write'),
    row('POST', `${A}/{id}/categories/reorder`, `${F}/categories/reorder.ts`, 'write'),
    row('GET', `${A}/{id}/categories/{category_id}`, `${F}/categories/show.ts`, 'read'),
    row(['PATCH', 'PUT'], `${A}/{id}/categories/{category_id}`, `${F}/categories/update.ts`, 'write'),
    row('DELETE', `${A}/{id}/categories/{category_id}`, `${F}/categories/destroy.ts`, 'write'),
    row('GET', `${A}/{id}/articles`, `${F}/articles/index.ts`, 'read'),
    row('POST', `${A}/{id}/articles`, `${F}/articles/create.ts`, 'write'),
    row('POST', `${A}/{id}/articles/reorder`, `${F}/articles/reorder.ts`, 'write'),
    row('GET', `${A}/{id}/articles/{article_id}`, `${F}/articles/show.ts`, 'read'),
    row(['PATCH', 'PUT'], `${A}/{id}/articles/{article_id}`, `${F}/articles/update.ts`, 'write'),
    row('DELETE', `${A}/{id}/articles/{article_id}`, `${F}/articles/destroy.ts`, 'write'),
    row('GET', '/api/v1/accounts/{account_id}/search/articles', 'functions/api/search/articles.ts', 'read'),
    pages('/hc/{slug}', 'portal'),
    pages('/hc/{slug}/sitemap.xml', 'sitemap'),
    pages('/hc/{slug}/{locale}', 'home'),
    pages('/hc/{slug}/{locale}/articles', 'search'),
    pages('/hc/{slug}/{locale}/categories/{category_slug}', 'category'),
    pages('/hc/{slug}/articles/{article_slug}', 'article'),
  ];
}
