import * as keys from '../keys.ts';
import { transact } from '../transact.ts';
import type { CampaignRecord } from '#shared/model/campaigns.ts';
import { getItem, queryPrefix, record } from './common.ts';
import { versionedDel, versionedPut } from './versioned.ts';

// Access patterns of campaigns (numbers as in docs/data-model.md#keys-and-access-patterns).

/** AP156: a campaign of an account by display id. */
export const getCampaign = (accountId: number, displayId: number, consistent = false) =>
  getItem<CampaignRecord>(keys.campaign(accountId, displayId), consistent);

/** AP157: the campaigns of an account, by display id (the widget keeps its inbox's enabled ones). */
export async function listCampaigns(accountId: number): Promise<CampaignRecord[]> {
  const p = keys.campaignsOf(accountId);
  return (await queryPrefix({ pk: p.pk }, p.skPrefix)).map((i) => record<CampaignRecord>(i)!);
}

const item = (c: CampaignRecord) => ({ ...keys.campaign(c.account_id, c.display_id), type: 'campaign', ...c });

export async function saveCampaign(before: CampaignRecord | undefined, after: CampaignRecord): Promise<void> {
  await transact([versionedPut(item(after), before?.version)]);
}

export async function deleteCampaign(c: CampaignRecord): Promise<void> {
  await transact([versionedDel(keys.campaign(c.account_id, c.display_id), c.version)]);
}
