import * as v from 'valibot';
import { Bool, RequiredText, Text } from '../schemas.ts';

/** The longest threshold taken: ten years, in seconds (a deadline stays a sane instant). */
export const MAX_THRESHOLD_SECONDS = 10 * 365 * 86_400;

// Chatwoot stores thresholds as floats of seconds; blank is "not set". Numeric strings (form posts) are read as numbers.
const Threshold = v.optional(
  v.nullable(
    v.pipe(
      v.union(
        [v.number('must be a number'), v.pipe(v.string(), v.regex(/^\d{1,12}(\.\d{1,6})?$/, 'must be a number'), v.transform(Number))],
        'must be a number',
      ),
      v.check((n) => Number.isFinite(n), 'must be a number'),
      v.minValue(0, 'must not be negative'),
      v.maxValue(MAX_THRESHOLD_SECONDS, `must be at most ${MAX_THRESHOLD_SECONDS}`),
    ),
  ),
);

const fields = {
  description: v.optional(v.nullable(Text(20000))),
  first_response_time_threshold: Threshold,
  next_response_time_threshold: Threshold,
  resolution_time_threshold: Threshold,
  only_during_business_hours: v.optional(v.nullable(Bool)),
};

export const NewSlaPolicySchema = v.object({ name: RequiredText(255), ...fields });
export const SlaPolicyUpdateSchema = v.object({ name: v.optional(RequiredText(255)), ...fields });

export type NewSlaPolicy = v.InferOutput<typeof NewSlaPolicySchema>;
export type SlaPolicyUpdate = v.InferOutput<typeof SlaPolicyUpdateSchema>;

const Optional = v.optional(v.string());

/** applied_slas, its metrics and download: Chatwoot's filters and page (documentation: the service parses it). */
export const AppliedSlaQuery = v.object({
  since: Optional,
  until: Optional,
  inbox_id: Optional,
  team_id: Optional,
  sla_policy_id: Optional,
  assigned_agent_id: Optional,
  label_list: Optional,
  page: Optional,
});
