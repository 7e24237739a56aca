import { ingestWebhook } from '#shared/channels/ingest.ts';
import { lineWebhook } from '#shared/channels/line/webhook.ts';
import { rawHandler } from '#shared/http/raw.ts';

// `POST /webhooks/line/{line_channel_id}`: LINE's webhooks, signed with the channel secret (docs/channels.md#line).
export const handler = rawHandler((req) => ingestWebhook(lineWebhook, req));
