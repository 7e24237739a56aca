import * as v from 'valibot';
import { MAX_CONTENT, MAX_CONTENT_BYTES } from '../messages/content.ts';
import { Bool, Id, JsonObject, nullable, RequiredText, Text } from '../schemas.ts';

// Chatwoot's campaign_params: title, description, message, enabled, trigger_only_during_business_hours,
// inbox_id, sender_id, scheduled_at, audience [{type, id}], trigger_rules {}.

const Audience = v.array(v.object({ type: Text(64), id: Id }, 'must be {type, id}'), 'must be an array of {type, id}');
/** Unix seconds or an ISO 8601 time, as Rails takes both. */
const Time = v.union(
  [
    v.pipe(v.number(), v.integer(), v.minValue(0)),
    v.pipe(
      v.string(),
      v.check((s) => !Number.isNaN(Date.parse(s)), 'must be a time'),
      v.transform((s) => Math.floor(Date.parse(s) / 1000)),
    ),
  ],
  'must be a time',
);

const fields = {
  title: RequiredText(255),
  description: v.optional(nullable(Text(10_000))),
  // A message's bounds: the campaign sends it as one.
  message: v.pipe(RequiredText(MAX_CONTENT), v.maxBytes(MAX_CONTENT_BYTES)),
  enabled: v.optional(Bool),
  trigger_only_during_business_hours: v.optional(Bool),
  inbox_id: Id,
  sender_id: v.optional(nullable(Id)),
  scheduled_at: v.optional(nullable(Time)),
  audience: v.optional(nullable(Audience)),
  trigger_rules: v.optional(nullable(JsonObject)),
};

export const NewCampaignSchema = v.object(fields);
export const CampaignUpdateSchema = v.partial(v.object(fields));

export type NewCampaign = v.InferOutput<typeof NewCampaignSchema>;
export type CampaignUpdate = v.InferOutput<typeof CampaignUpdateSchema>;
