import { ingestWebhook } from '#shared/channels/ingest.ts';
import { telegramWebhook } from '#shared/channels/telegram/webhook.ts';
import { rawHandler } from '#shared/http/raw.ts';

// `POST /webhooks/telegram/{bot id}`: Telegram's updates, with the secret token the service registered
// (docs/channels.md#telegram).
export const handler = rawHandler((req) => ingestWebhook(telegramWebhook, req));
