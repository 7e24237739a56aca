import * as v from 'valibot';
import { Id } from '../schemas.ts';
import { EMAIL_FLAGS, PUSH_FLAGS } from '#shared/model/notifications.ts';

const Flags = (all: string[]) =>
  v.pipe(
    v.array(v.string('must be a flag name'), 'must be an array'),
    v.check((fs) => fs.every((f) => all.includes(f)), `may only hold ${all.join(', ')}`),
    v.transform((fs) => [...new Set(fs)]),
  );

export const NotificationSettingsSchema = v.object({
  selected_email_flags: v.optional(Flags(EMAIL_FLAGS)),
  selected_push_flags: v.optional(Flags(PUSH_FLAGS)),
});

export const ReadAllSchema = v.object({
  primary_actor_type: v.optional(v.nullable(v.string())),
  primary_actor_id: v.optional(v.nullable(Id)),
});

const Token = v.pipe(v.string('must be a string'), v.trim(), v.minLength(1, 'is required'), v.maxLength(4096));

export const PushSubscriptionSchema = v.object({
  subscription_type: v.picklist(['browser_push', 'fcm'], 'must be browser_push or fcm'),
  subscription_attributes: v.object({
    endpoint: v.optional(Token),
    p256dh: v.optional(Token),
    auth: v.optional(Token),
    push_token: v.optional(Token),
    device_id: v.optional(Token),
  }),
});

export const PushUnsubscribeSchema = v.object({ push_token: Token });

export type PushSubscriptionInput = v.InferOutput<typeof PushSubscriptionSchema>;

/** Unix seconds, as a number or a string of digits (Chatwoot parses `snoozed_until` with `%s`). */
const UnixSeconds = v.pipe(
  v.union([v.pipe(v.number(), v.integer(), v.minValue(0)), v.pipe(v.string(), v.regex(/^\d{1,12}$/))], 'must be Unix seconds'),
  v.transform(Number),
  v.maxValue(253402300799, 'must be Unix seconds'),
);
export const SnoozeSchema = v.object({ snoozed_until: v.optional(UnixSeconds) });
