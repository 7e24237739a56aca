import { ingestWebhook } from '#shared/channels/ingest.ts';
import { facebookWebhook } from '#shared/channels/facebook/webhook.ts';
import { rawHandler } from '#shared/http/raw.ts';

// `GET|POST /bot`: Meta's verify handshake and Messenger's webhooks for every page (docs/channels.md#facebook-messenger).
export const handler = rawHandler((req) => ingestWebhook(facebookWebhook, req));
