import { apiHandler, intParam } from '#shared/http/handler.ts';
import { updateCampaign } from '#shared/domain/campaigns/service.ts';
import { CampaignUpdateSchema } from '#shared/domain/campaigns/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(CampaignUpdateSchema),
  rootKey: 'campaign',
  run: (ctx) => updateCampaign(ctx.account, intParam(ctx, 'id', 'Campaign'), ctx.body),
});
