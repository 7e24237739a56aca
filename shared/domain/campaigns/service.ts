import { nextDenseId } from '#shared/db/ids.ts';
import * as keys from '#shared/db/keys.ts';
import * as repo from '#shared/db/repositories/campaigns.ts';
import { getAccountUser } from '#shared/db/repositories/identity.ts';
import { getInbox } from '#shared/db/repositories/inboxes.ts';
import { retryStale } from '#shared/db/repositories/versioned.ts';
import { invalidField, notFound } from '#shared/errors.ts';
import { agentsJson } from '../agents/view.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import { inboxJson } from '../inboxes/view.ts';
import type { AccountRecord } from '#shared/model/identity.ts';
import { now } from '#shared/model/time.ts';
import type { CampaignRecord } from '#shared/model/campaigns.ts';
import type { CampaignUpdate, NewCampaign } from './schemas.ts';

// Campaigns (Chatwoot's CampaignsController and Campaign model). Ongoing campaigns of website inboxes show
// their message to visitors whose page matches the trigger rules (the widget evaluates them, see
// widget/campaigns.ts); one-off campaigns (SMS, WhatsApp inboxes) are stored and shown but never sent:
// this service has no SMS or WhatsApp sending. Administrators only, as Chatwoot's CampaignPolicy.

const WEBSITE = 'Channel::WebWidget';
/** Chatwoot: 'Website', 'Twilio SMS', 'Sms', 'Whatsapp'. */
const CAMPAIGN_CHANNELS = [WEBSITE, 'Channel::Sms', 'Channel::Whatsapp'];

const iso = (t: number) => new Date(t * 1000).toISOString();

/** Chatwoot's `api/v1/models/_campaign` partial. */
async function json(c: CampaignRecord, inbox?: InboxRecord) {
  const [box, sender] = await Promise.all([
    inbox ?? getInbox(c.account_id, c.inbox_id),
    c.sender_id ? agentsJson(c.account_id, [c.sender_id]).then((a) => a[0]) : undefined,
  ]);
  return {
    id: c.display_id,
    title: c.title,
    description: c.description,
    account_id: c.account_id,
    inbox: box ? inboxJson(box, true) : null,
    sender: sender ?? null,
    message: c.message,
    campaign_status: c.campaign_status,
    enabled: c.enabled,
    campaign_type: c.campaign_type,
    ...(c.campaign_type === 'one_off' ? { scheduled_at: c.scheduled_at ?? 0, audience: c.audience } : {}),
    trigger_rules: c.trigger_rules,
    trigger_only_during_business_hours: c.trigger_only_during_business_hours,
    created_at: iso(c.created_at),
    updated_at: iso(c.updated_at),
  };
}

async function find(accountId: number, id: number, consistent = false) {
  const c = await repo.getCampaign(accountId, id, consistent);
  if (!c) throw notFound('Campaign');
  return c;
}

/** The model's validations and `ensure_correct_campaign_attributes`, on the record about to be saved. */
async function checked(c: CampaignRecord): Promise<{ campaign: CampaignRecord; inbox: InboxRecord }> {
  const inbox = await getInbox(c.account_id, c.inbox_id);
  if (!inbox) throw invalidField('inbox_id', 'must be an inbox of this account', 'not_found');
  if (!CAMPAIGN_CHANNELS.includes(inbox.channel_type)) throw invalidField('inbox_id', 'Unsupported Inbox type', 'invalid');
  const url = c.trigger_rules.url;
  if (inbox.channel_type === WEBSITE && url !== undefined && url !== null && !(typeof url === 'string' && /^https?:\/\//.test(url))) {
    throw invalidField('trigger_rules.url', 'invalid', 'invalid');
  }
  const time = c.trigger_rules.time_on_page;
  if (time !== undefined && time !== null && !(Number.isFinite(Number(time)) && Number(time) >= 0)) {
    throw invalidField('trigger_rules.time_on_page', 'must be a number of seconds', 'invalid');
  }
  if (c.sender_id !== null && !(await getAccountUser(c.account_id, c.sender_id))) {
    throw invalidField('sender_id', 'must belong to the same account as the campaign', 'invalid');
  }
  const website = inbox.channel_type === WEBSITE;
  return {
    campaign: {
      ...c,
      campaign_type: website ? 'ongoing' : 'one_off',
      scheduled_at: website ? null : (c.scheduled_at ?? now()),
    },
    inbox,
  };
}

export async function listCampaigns(account: AccountRecord) {
  const campaigns = await repo.listCampaigns(account.id);
  return Promise.all(campaigns.map((c) => json(c)));
}

export async function showCampaign(account: AccountRecord, id: number) {
  return json(await find(account.id, id));
}

export async function createCampaign(account: AccountRecord, input: NewCampaign) {
  const t = now();
  const draft: CampaignRecord = {
    display_id: 0,
    account_id: account.id,
    inbox_id: input.inbox_id,
    title: input.title,
    description: input.description ?? null,
    message: input.message,
    sender_id: input.sender_id ?? null,
    enabled: input.enabled ?? true,
    trigger_only_during_business_hours: input.trigger_only_during_business_hours ?? false,
    trigger_rules: input.trigger_rules ?? {},
    campaign_type: 'ongoing',
    campaign_status: 'active',
    scheduled_at: input.scheduled_at ?? null,
    audience: input.audience ?? [],
    created_at: t,
    updated_at: t,
    version: 1,
  };
  const { campaign, inbox } = await checked(draft);
  campaign.display_id = await nextDenseId(keys.campaignSequence(account.id));
  await repo.saveCampaign(undefined, campaign);
  return json(campaign, inbox);
}

export async function updateCampaign(account: AccountRecord, id: number, input: CampaignUpdate) {
  return retryStale(async (consistent) => {
    const before = await find(account.id, id, consistent);
    const set = <K extends keyof CampaignUpdate>(k: K) => input[k] !== undefined;
    const { campaign, inbox } = await checked({
      ...before,
      ...(set('title') ? { title: input.title! } : {}),
      ...(set('description') ? { description: input.description ?? null } : {}),
      ...(set('message') ? { message: input.message! } : {}),
      ...(set('inbox_id') ? { inbox_id: input.inbox_id! } : {}),
      ...(set('sender_id') ? { sender_id: input.sender_id ?? null } : {}),
      ...(set('enabled') ? { enabled: input.enabled! } : {}),
      ...(set('trigger_only_during_business_hours')
        ? { trigger_only_during_business_hours: input.trigger_only_during_business_hours! }
        : {}),
      ...(set('trigger_rules') ? { trigger_rules: input.trigger_rules ?? {} } : {}),
      ...(set('scheduled_at') ? { scheduled_at: input.scheduled_at ?? null } : {}),
      ...(set('audience') ? { audience: input.audience ?? [] } : {}),
      updated_at: now(),
      version: before.version + 1,
    });
    await repo.saveCampaign(before, campaign);
    return json(campaign, inbox);
  });
}

/** Chatwoot answers 200 with no body. */
export async function deleteCampaign(account: AccountRecord, id: number) {
  // A concurrent change or delete of the campaign is a lost race: read again (a delete that lost is then 404).
  await retryStale(async () => repo.deleteCampaign(await find(account.id, id, true)));
}
