import { createHmac } from 'node:crypto';

// Two signature schemes on every delivery, so receivers written for either verify it:
// - Chatwoot (post-4.10): X-Chatwoot-Signature: sha256=<hex HMAC-SHA256(secret, "<ts>.<body>")>
// - Standard Webhooks: webhook-signature: v1,<base64 HMAC-SHA256(key, "<id>.<ts>.<body>")>, where the
//   key is the base64 part of a `whsec_` secret (our secrets have that form).

export function standardWebhooksKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
}

export function signatureHeaders(secret: string | null, deliveryId: string, body: string, timestamp: number): Record<string, string> {
  const ts = String(timestamp);
  const headers: Record<string, string> = {
    'x-chatwoot-delivery': deliveryId,
    'webhook-id': deliveryId,
    'webhook-timestamp': ts,
  };
  if (!secret) return headers;
  headers['x-chatwoot-timestamp'] = ts;
  headers['x-chatwoot-signature'] = `sha256=${createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex')}`;
  headers['webhook-signature'] =
    `v1,${createHmac('sha256', standardWebhooksKey(secret)).update(`${deliveryId}.${ts}.${body}`).digest('base64')}`;
  return headers;
}
