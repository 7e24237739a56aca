import { config, mailConfig } from '#shared/config.ts';
import { FEATURE_FLAGS, type InboxRecord } from '#shared/model/inboxes.ts';
import { inboxAvatarUrl } from '../contacts/view.ts';

// Inbox JSON (docs/contract.md#inbox, docs/chatwoot.md#inbox-json): every field of the contract on every inbox, null
// where the channel type lacks the attribute; channel-specific extras by type; credentials to administrators only.

/** The snippet a website embeds to load the widget (Chatwoot's `web_widget_script`). */
export function widgetScript(websiteToken: string): string {
  const base = config().publicBaseUrl;
  return `
    <script>
      (function(d,t) {
        var BASE_URL="${base}";
        var g=d.createElement(t),s=d.getElementsByTagName(t)[0];
        g.src=BASE_URL+"/packs/js/sdk.js";
        g.defer = true;
        g.async = true;
        s.parentNode.insertBefore(g,s);
        g.onload=function(){
          window.chatwootSDK.run({
            websiteToken: '${websiteToken}',
            baseUrl: BASE_URL
          })
        }
      })(document,"script");
    </script>
    `;
}

const featureFlags = (enabled: string[] | null) => (enabled ? Object.fromEntries(FEATURE_FLAGS.map((f) => [f, enabled.includes(f)])) : {});

function channelExtras(i: InboxRecord, admin: boolean): Record<string, unknown> {
  switch (i.channel_type) {
    case 'Channel::WebWidget':
      return {
        pre_chat_form_enabled: i.pre_chat_form_enabled,
        pre_chat_form_options: i.pre_chat_form_options,
        continuity_via_email: i.continuity_via_email,
        ...(admin ? { hmac_token: i.hmac_token } : {}),
      };
    case 'Channel::Api':
      return {
        webhook_url: i.webhook_url,
        inbox_identifier: i.inbox_identifier,
        additional_attributes: i.additional_attributes ?? {},
        ...(admin ? { hmac_token: i.hmac_token } : {}),
      };
    case 'Channel::Email':
      return {
        email: i.email,
        // Chatwoot: forwarding exists where an inbound domain is configured, and only then is the address shown.
        forwarding_enabled: !!mailConfig().inboundMail.domain && i.forward_to_email !== null,
        forward_to_email: mailConfig().inboundMail.domain ? i.forward_to_email : null,
        ...(admin ? i.email_settings : {}),
      };
    case 'Channel::Telegram':
      return { bot_name: i.bot_name };
    case 'Channel::Whatsapp':
      return {
        message_templates: i.message_templates ?? [],
        reauthorization_required: i.reauthorization_required ?? false,
        ...(admin ? { provider_config: i.provider_config } : {}),
      };
    case 'Channel::Line':
      return admin
        ? { line_channel_id: i.line_channel_id, line_channel_secret: i.line_channel_secret, line_channel_token: i.line_channel_token }
        : {};
    case 'Channel::Sms':
      return admin ? { provider_config: i.provider_config } : {};
    case 'Channel::TwilioSms':
      return {
        content_templates: i.content_templates ?? { templates: [] },
        ...(admin ? { auth_token: i.auth_token ?? null, account_sid: i.account_sid ?? null } : {}),
      };
    case 'Channel::Instagram':
      return { instagram_id: i.instagram_id ?? null, reauthorization_required: i.reauthorization_required ?? false };
    case 'Channel::FacebookPage':
      return {
        page_id: i.page_id ?? null,
        instagram_id: i.instagram_id ?? null,
        reauthorization_required: i.reauthorization_required ?? false,
      };
  }
}

export function inboxJson(i: InboxRecord, admin: boolean) {
  return {
    id: i.id,
    account_id: i.account_id,
    avatar_url: inboxAvatarUrl(i),
    channel_id: i.channel_id,
    name: i.name,
    channel_type: i.channel_type,
    greeting_enabled: i.greeting_enabled,
    greeting_message: i.greeting_message,
    working_hours_enabled: i.working_hours_enabled,
    enable_email_collect: i.enable_email_collect,
    csat_survey_enabled: i.csat_survey_enabled,
    csat_config: i.csat_config,
    enable_auto_assignment: i.enable_auto_assignment,
    auto_assignment_config: i.auto_assignment_config,
    out_of_office_message: i.out_of_office_message,
    working_hours: i.working_hours,
    timezone: i.timezone,
    callback_webhook_url: i.callback_webhook_url,
    allow_messages_after_resolved: i.allow_messages_after_resolved,
    lock_to_single_conversation: i.lock_to_single_conversation,
    sender_name_type: i.sender_name_type,
    business_name: i.business_name,
    portal_id: i.portal_id,
    agent_bot_id: i.agent_bot_id,
    allowed_domains: i.allowed_domains,
    widget_color: i.widget_color,
    website_url: i.website_url,
    hmac_mandatory: i.hmac_mandatory,
    welcome_title: i.welcome_title,
    welcome_tagline: i.welcome_tagline,
    web_widget_script: i.website_token ? widgetScript(i.website_token) : null,
    website_token: i.website_token,
    selected_feature_flags: featureFlags(i.selected_feature_flags),
    reply_time: i.reply_time,
    messaging_service_sid: i.messaging_service_sid,
    phone_number: i.phone_number,
    medium: i.medium,
    provider: i.provider,
    created_at: i.created_at,
    updated_at: i.updated_at,
    ...channelExtras(i, admin),
  };
}
