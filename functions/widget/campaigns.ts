import { publicHandler } from '#shared/http/handler.ts';
import { listWidgetCampaigns, widgetRequest } from '#shared/domain/widget/chat.ts';

export const handler = publicHandler({ run: (ctx) => listWidgetCampaigns(widgetRequest(ctx)) });
