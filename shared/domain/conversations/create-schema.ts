import * as v from 'valibot';
import { Bool, Id, RequiredText } from '../schemas.ts';
import { NewMessageSchema } from '../messages/schemas.ts';
import { Attributes, Moment, Status } from './schemas.ts';

// `POST /conversations`: a new conversation and, optionally, its first message (Chatwoot's `message`).

export const NewConversationSchema = v.object({
  // Blank is none (the n8n node sends `""` beside inbox_id and contact_id).
  source_id: v.optional(v.nullable(RequiredText(255))),
  inbox_id: v.optional(Id),
  contact_id: v.optional(Id),
  additional_attributes: v.optional(Attributes),
  custom_attributes: v.optional(Attributes),
  status: v.optional(Status),
  assignee_id: v.optional(v.nullable(Id)),
  team_id: v.optional(v.nullable(Id)),
  snoozed_until: v.optional(v.nullable(Moment)),
  hmac_verified: v.optional(Bool),
  message: v.optional(NewMessageSchema),
});
export type NewConversation = v.InferOutput<typeof NewConversationSchema>;
