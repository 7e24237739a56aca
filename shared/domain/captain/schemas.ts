import * as v from 'valibot';
import { Id, RequiredText } from '../schemas.ts';
import { MAX_CONTENT } from '../messages/content.ts';
import { FOLLOW_UP_EVENTS, REWRITE_OPERATIONS } from './prompts.ts';

// Bodies of `POST captain/tasks/*` (Chatwoot's Captain::TasksController params; the mobile app's copilot).

const DisplayId = v.optional(v.nullable(Id));

export const RewriteSchema = v.object({
  content: RequiredText(MAX_CONTENT),
  operation: v.picklist(REWRITE_OPERATIONS, `must be one of ${REWRITE_OPERATIONS.join(', ')}`),
  conversation_display_id: DisplayId,
});
export type RewriteRequest = v.InferOutput<typeof RewriteSchema>;

export const ConversationTaskSchema = v.object({ conversation_display_id: Id });
export type ConversationTaskRequest = v.InferOutput<typeof ConversationTaskSchema>;

const Turn = v.object({ role: v.picklist(['user', 'assistant'], 'must be user or assistant'), content: v.string('must be a string') });

/** What the previous answer handed back; refined turn by turn (the client keeps it, as Chatwoot's). */
export const FollowUpContextSchema = v.object({
  event_name: v.picklist(FOLLOW_UP_EVENTS, 'is not a task that can be followed up'),
  original_context: RequiredText(MAX_CONTENT * 3),
  last_response: RequiredText(MAX_CONTENT),
  conversation_history: v.optional(v.pipe(v.array(Turn), v.maxLength(50, 'has too many turns')), []),
  channel_type: v.optional(v.nullable(v.string())),
});
export type FollowUpContext = v.InferOutput<typeof FollowUpContextSchema>;

export const FollowUpSchema = v.object({
  follow_up_context: FollowUpContextSchema,
  message: RequiredText(MAX_CONTENT),
  conversation_display_id: DisplayId,
});
export type FollowUpRequest = v.InferOutput<typeof FollowUpSchema>;
