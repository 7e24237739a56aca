import { ingestWebhook } from '#shared/channels/ingest.ts';
import { twilioRoom } from '#shared/channels/twilio/room.ts';
import { rawHandler } from '#shared/http/raw.ts';

// `POST /twilio/delivery_status`: Twilio's status callbacks of the messages we sent (docs/channels.md#twilio).
export const handler = rawHandler((req) => ingestWebhook(twilioRoom, req));
