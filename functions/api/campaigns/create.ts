import { apiHandler } from '#shared/http/handler.ts';
import { createCampaign } from '#shared/domain/campaigns/service.ts';
import { NewCampaignSchema } from '#shared/domain/campaigns/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(NewCampaignSchema),
  rootKey: 'campaign',
  run: ({ account, body }) => createCampaign(account, body),
});
