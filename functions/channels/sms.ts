import { ingestWebhook } from '#shared/channels/ingest.ts';
import { bandwidthWebhook } from '#shared/channels/bandwidth/webhook.ts';
import { rawHandler } from '#shared/http/raw.ts';

// `POST /webhooks/sms/{phone_number}`: Bandwidth's messaging callbacks (docs/channels.md#bandwidth).
export const handler = rawHandler((req) => ingestWebhook(bandwidthWebhook, req));
