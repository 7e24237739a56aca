import { apiHandler } from '#shared/http/handler.ts';
import { listCampaigns } from '#shared/domain/campaigns/service.ts';

export const handler = apiHandler({ access: 'administrator', run: ({ account }) => listCampaigns(account) });
