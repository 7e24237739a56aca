import * as v from 'valibot';
import { Text } from '../schemas.ts';

const RATING = 'must be an integer from 1 to 5';
/** A CSAT rating; the public interface's bodies take it from here, so the CSAT routes do not carry theirs. */
export const Rating = v.pipe(
  v.union([v.number(), v.pipe(v.string(), v.regex(/^\d+$/), v.transform(Number))], RATING),
  v.integer(RATING),
  v.minValue(1, RATING),
  v.maxValue(5, RATING),
);

/**
 * `PATCH /public/api/v1/csat_survey/{uuid}` (the survey page), as the widget answers a CSAT message:
 * `{message: {submitted_values: {csat_survey_response: {rating, feedback_message}}}}`; a rating is required.
 */
export const CsatAnswerSchema = v.object({
  message: v.object({
    submitted_values: v.object({
      csat_survey_response: v.object({
        rating: Rating,
        feedback_message: v.optional(v.nullable(Text(10_000))),
      }),
    }),
  }),
});
export type CsatAnswer = v.InferOutput<typeof CsatAnswerSchema>;

const Optional = v.optional(v.string());

/** The responses list's, metrics' and download's query (documentation: the service parses it). */
export const CsatQuery = v.object({
  since: Optional,
  until: Optional,
  page: Optional,
  user_ids: Optional,
  inbox_id: Optional,
  team_id: Optional,
  rating: Optional,
});
