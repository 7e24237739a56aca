import { apiHandler, intParam } from '#shared/http/handler.ts';
import { showCampaign } from '#shared/domain/campaigns/service.ts';

export const handler = apiHandler({ access: 'administrator', run: (ctx) => showCampaign(ctx.account, intParam(ctx, 'id', 'Campaign')) });
