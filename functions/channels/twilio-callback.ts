import { ingestWebhook } from '#shared/channels/ingest.ts';
import { twilioWebhook } from '#shared/channels/twilio/webhook.ts';
import { rawHandler } from '#shared/http/raw.ts';

// `POST /twilio/callback`: Twilio SMS and WhatsApp messages (docs/channels.md#twilio).
export const handler = rawHandler((req) => ingestWebhook(twilioWebhook, req));
