import * as v from 'valibot';
import { Bool, Id, RequiredText, Text } from '../schemas.ts';

// Team bodies (Chatwoot `team` params: name, description, allow_auto_assign); names are stored lower-case.

const Name = v.pipe(RequiredText(255), v.toLowerCase());

export const NewTeamSchema = v.object({
  name: Name,
  description: v.optional(v.nullable(Text(255))),
  allow_auto_assign: v.optional(Bool),
});
export type NewTeam = v.InferOutput<typeof NewTeamSchema>;

export const TeamUpdateSchema = v.object({
  name: v.optional(Name),
  description: v.optional(v.nullable(Text(255))),
  allow_auto_assign: v.optional(Bool),
});
export type TeamUpdate = v.InferOutput<typeof TeamUpdateSchema>;

export const TeamMembersSchema = v.object({
  user_ids: v.union([v.array(Id), v.pipe(v.string(), v.parseJson(), v.array(Id))], 'must be an array of user ids'),
});
