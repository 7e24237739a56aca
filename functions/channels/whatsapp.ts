import { ingestWebhook } from '#shared/channels/ingest.ts';
import { whatsappWebhook } from '#shared/channels/whatsapp/webhook.ts';
import { rawHandler } from '#shared/http/raw.ts';

// `GET|POST /webhooks/whatsapp/{phone_number}`: Meta's verify handshake and the webhooks of WhatsApp Cloud and
// 360dialog (docs/channels.md#whatsapp).
export const handler = rawHandler((req) => ingestWebhook(whatsappWebhook, req));
