import { ingestWebhook } from '#shared/channels/ingest.ts';
import { instagramWebhook } from '#shared/channels/instagram/webhook.ts';
import { rawHandler } from '#shared/http/raw.ts';

// `GET|POST /webhooks/instagram`: Meta's verify handshake and Instagram's messaging webhooks (docs/channels.md#instagram).
export const handler = rawHandler((req) => ingestWebhook(instagramWebhook, req));
