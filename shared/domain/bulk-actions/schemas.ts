import * as v from 'valibot';
import { Id } from '../schemas.ts';
import { Label, Moment, Status } from '../conversations/schemas.ts';

// Chatwoot's bulk action body: `{type, ids, fields: {status, assignee_id, team_id}, snoozed_until,
// labels: {add, remove}}`. A team id of 0 (or "0", from forms) removes the team, as the dashboard sends.

const Labels = v.pipe(v.array(Label, 'must be an array of strings'), v.maxLength(100));
const NoTeam = v.pipe(
  v.union([v.literal(0), v.literal('0')]),
  v.transform(() => null),
);

export const BulkActionSchema = v.object({
  type: v.pipe(
    v.string('must be a string'),
    v.check((t) => t.trim().toLowerCase() === 'conversation', 'only Conversation bulk actions are supported'),
  ),
  ids: v.pipe(v.array(Id, 'must be an array of conversation ids'), v.minLength(1), v.maxLength(500)),
  fields: v.optional(
    v.object({
      status: v.optional(v.nullable(Status)),
      assignee_id: v.optional(v.nullable(Id)),
      team_id: v.optional(v.nullable(v.union([NoTeam, Id], 'must be a team id or 0'))),
    }),
  ),
  snoozed_until: v.optional(v.nullable(Moment)),
  labels: v.optional(v.object({ add: v.optional(Labels), remove: v.optional(Labels) })),
});

export type BulkAction = v.InferOutput<typeof BulkActionSchema>;
