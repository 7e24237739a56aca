import { listCampaigns, getCampaign } from '#shared/db/repositories/campaigns.ts';
import { listContactConversationLinks } from '#shared/db/repositories/conversations.ts';
import { getAccountUser, getUser } from '#shared/db/repositories/identity.ts';
import { getContact } from '#shared/db/repositories/contacts.ts';
import type { CampaignRecord } from '#shared/model/campaigns.ts';
import type { ConversationActor } from '#shared/model/conversations.ts';
import { startConversation } from '../conversations/service.ts';
import { addMessage } from '../messages/service.ts';
import { userAvatarUrl } from '../conversations/view.ts';
import type { AccountRecord } from '#shared/model/identity.ts';
import { contactActor } from '../public/access.ts';
import type { ContactInboxRecord } from '#shared/model/contacts.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import { log } from '#shared/log.ts';

// Ongoing campaigns in the widget: `GET /api/v1/widget/campaigns` lists the inbox's enabled ones (the widget
// evaluates their trigger rules in the visitor's page), and the widget's `campaign.triggered` event starts
// the visitor's conversation with the campaign's message (Chatwoot's CampaignListener and
// Campaigns::CampaignConversationBuilder).

/** Chatwoot's `api/v1/widget/campaigns/index` view, for the inbox's enabled ongoing campaigns. */
export async function widgetCampaignsJson(inbox: InboxRecord) {
  const campaigns = (await listCampaigns(inbox.account_id)).filter(
    (c) => c.inbox_id === inbox.id && c.enabled && c.campaign_type === 'ongoing',
  );
  const senderIds = [...new Set(campaigns.map((c) => c.sender_id).filter((id): id is number => id !== null))];
  const users = new Map((await Promise.all(senderIds.map((id) => getUser(id)))).filter((u) => !!u).map((u) => [u!.id, u!]));
  return campaigns.map((c) => {
    const u = c.sender_id !== null ? users.get(c.sender_id) : undefined;
    return {
      id: c.display_id,
      trigger_rules: c.trigger_rules,
      message: c.message,
      sender: u ? { name: u.name, avatar_url: userAvatarUrl(u) } : null,
      // Read by our widget (Chatwoot's widget reads it from the inbox's working hours): only during them.
      trigger_only_during_business_hours: c.trigger_only_during_business_hours,
    };
  });
}

/** The campaign's sender as the actor of its message; a sender who left the account makes no sender. */
async function senderActor(c: CampaignRecord): Promise<ConversationActor> {
  if (c.sender_id !== null) {
    const [user, membership] = await Promise.all([getUser(c.sender_id), getAccountUser(c.account_id, c.sender_id)]);
    if (user && membership) return { type: 'user', user, role: membership.role };
  }
  return { type: 'campaign', campaignId: c.display_id };
}

/**
 * `campaign.triggered`: the visitor's first conversation, made of the campaign's message, as long as the
 * contact inbox has no conversation yet (Chatwoot sends a campaign once). `event_info` becomes the
 * conversation's additional attributes (without `campaign_id`), its `custom_attributes` the conversation's.
 * Nothing happens for a campaign of another inbox, an unknown or disabled one.
 */
export async function runCampaign(account: AccountRecord, inbox: InboxRecord, ci: ContactInboxRecord, eventInfo: Record<string, unknown>) {
  const id = Number(eventInfo.campaign_id);
  const campaign = Number.isInteger(id) && id > 0 ? await getCampaign(ci.account_id, id) : undefined;
  if (!campaign || campaign.inbox_id !== ci.inbox_id || !campaign.enabled) {
    log.info('campaign not run: unknown, disabled or of another inbox', { accountId: ci.account_id, campaignId: eventInfo.campaign_id });
    return undefined;
  }
  const links = await listContactConversationLinks(ci.account_id, ci.contact_id);
  if (links.some((l) => l.inbox_id === ci.inbox_id && l.source_id === ci.source_id)) return undefined;
  const contact = await getContact(ci.account_id, ci.contact_id, true);
  if (!contact) return undefined;
  const { campaign_id: _c, custom_attributes, ...additional } = eventInfo;
  const { conversation } = await startConversation(
    account,
    contactActor(ci),
    { inbox, contact, contactInbox: ci },
    {
      additional_attributes: { ...additional, campaign_id: campaign.display_id },
      custom_attributes:
        custom_attributes && typeof custom_attributes === 'object' && !Array.isArray(custom_attributes)
          ? (custom_attributes as Record<string, unknown>)
          : undefined,
    },
  );
  const { message } = await addMessage(account, await senderActor(campaign), conversation, {
    content: campaign.message,
    message_type: 'outgoing',
  });
  return { conversation, message };
}
