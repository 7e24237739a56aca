import { ingestWebhook } from '#shared/channels/ingest.ts';
import { twilioWebhook } from '#shared/channels/twilio/webhook.ts';
import { rawHandler } from '#shared/http/raw.ts';

// `POST /twilio/delivery_status`: Twilio's status callbacks of the messages we sent (docs/channels.md#twilio).
export const handler = rawHandler((req) => ingestWebhook(twilioWebhook, req));
