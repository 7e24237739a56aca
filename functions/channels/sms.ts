import { ingestWebhook } from '#shared/channels/ingest.ts';
import { bandwidthRoom } from '#shared/channels/bandwidth/room.ts';
import { rawHandler } from '#shared/http/raw.ts';

// `POST /webhooks/sms/{phone_number}`: Bandwidth's messaging callbacks (docs/channels.md#bandwidth).
export const handler = rawHandler((req) => ingestWebhook(bandwidthRoom, req));
