import * as v from 'valibot';
import { Id, JsonObject, RequiredText } from '../schemas.ts';
import { PRIORITIES, STATUSES } from '#shared/model/conversations.ts';

// The bodies of the routes that change a conversation, and the pieces other areas' bodies share. A new
// conversation's body (with its first message's) is create-schema.ts: a route carries only the schema files it
// validates with, each whole (docs/cost.md#cold-start), and a status toggle needs no message body.

export const Status = v.picklist(STATUSES, `must be one of ${STATUSES.join(', ')}`);
export const PriorityValue = v.picklist(PRIORITIES, `must be one of ${PRIORITIES.join(', ')}`);

/** The last second of the year 9999: a later moment has no ISO 8601 form to answer with. */
const LATEST_MOMENT = 253_402_300_799;

/** A moment as Unix seconds (number or numeric string, as Chatwoot takes it) or an ISO 8601 date-time. */
export const Moment = v.union(
  [
    v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(LATEST_MOMENT)),
    v.pipe(v.string(), v.regex(/^\d{1,12}$/), v.transform(Number), v.maxValue(LATEST_MOMENT)),
    v.pipe(
      v.string(),
      v.isoTimestamp(),
      v.transform((s) => Math.floor(Date.parse(s) / 1000)),
    ),
  ],
  'must be Unix seconds or an ISO 8601 date-time',
);

/**
 * Conversation attribute hashes (docs/chatwoot.md#json-conventions): string values at most 1500 characters, integers
 * at most 9 999 999 999.
 */
export const Attributes = v.pipe(
  v.unknown(),
  // valibot's record takes an array for an object with index keys.
  v.check((x) => !Array.isArray(x), 'must be an object'),
  JsonObject,
  v.check((o) => Object.values(o).every((x) => typeof x !== 'string' || x.length <= 1500), 'string values must be at most 1500 characters'),
  v.check(
    (o) => Object.values(o).every((x) => typeof x !== 'number' || Math.abs(x) <= 9_999_999_999),
    'numbers must be at most 9999999999',
  ),
);

export const ConversationUpdateSchema = v.object({
  priority: v.optional(v.nullable(PriorityValue)),
  /** Chatwoot's enterprise SLA (docs/sla.md): the policy to apply; null takes it off. */
  sla_policy_id: v.optional(v.nullable(Id)),
});
export type ConversationUpdate = v.InferOutput<typeof ConversationUpdateSchema>;

export const ToggleStatusSchema = v.object({
  status: v.optional(Status),
  snoozed_until: v.optional(v.nullable(Moment)),
});
export type ToggleStatus = v.InferOutput<typeof ToggleStatusSchema>;

export const TogglePrioritySchema = v.object({ priority: v.optional(v.nullable(PriorityValue)) });

export const AssignmentSchema = v.object({
  assignee_id: v.optional(v.nullable(Id)),
  assignee_type: v.optional(v.picklist(['User', 'AgentBot'], 'must be User or AgentBot')),
  team_id: v.optional(v.nullable(Id)),
});
export type Assignment = v.InferOutput<typeof AssignmentSchema>;

export const Label = v.pipe(
  RequiredText(255),
  v.check((s) => !s.includes(','), 'must not contain commas'),
);

export const LabelsSchema = v.object({
  labels: v.optional(v.nullable(v.pipe(v.array(Label, 'must be an array of strings'), v.maxLength(100))), []),
});

export const CustomAttributesSchema = v.object({ custom_attributes: v.optional(v.nullable(Attributes), {}) });

/** `POST /conversations/{id}/transcript`: where to mail it (Chatwoot: 422 without it). */
export const TranscriptSchema = v.object({
  email: v.pipe(
    v.string('email param missing'),
    v.trim(),
    v.minLength(1, 'email param missing'),
    v.toLowerCase(),
    v.maxLength(255),
    v.email('is not a valid email address'),
  ),
});
