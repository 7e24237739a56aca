import * as v from 'valibot';
import { HttpUrl, Id, Text } from '../schemas.ts';
import { WEBHOOK_EVENTS, type WebhookEvent } from '#shared/model/webhooks.ts';

const Subscriptions = v.pipe(
  v.array(v.unknown(), 'must be an array of event names'),
  v.minLength(1),
  v.check((list) => list.every((e) => (WEBHOOK_EVENTS as readonly unknown[]).includes(e)), `may only contain ${WEBHOOK_EVENTS.join(', ')}`),
  v.transform((list) => [...new Set(list as WebhookEvent[])]),
);

const fields = {
  name: v.optional(v.nullable(Text(255))),
  subscriptions: v.optional(Subscriptions),
  inbox_id: v.optional(v.nullable(Id)),
};

export const NewWebhookSchema = v.object({ url: HttpUrl, ...fields });
export const WebhookUpdateSchema = v.object({ url: v.optional(HttpUrl), ...fields });

export type NewWebhook = v.InferOutput<typeof NewWebhookSchema>;
export type WebhookUpdate = v.InferOutput<typeof WebhookUpdateSchema>;
