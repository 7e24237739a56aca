import { apiHandler, intParam } from '#shared/http/handler.ts';
import { deleteCampaign } from '#shared/domain/campaigns/service.ts';

export const handler = apiHandler({ access: 'administrator', run: (ctx) => deleteCampaign(ctx.account, intParam(ctx, 'id', 'Campaign')) });
