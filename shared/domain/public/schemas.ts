import * as v from 'valibot';
import { AttributesEntry, AvatarUrlEntry, EmailEntry, IdentifierEntry, NameEntry, PhoneEntry, SourceIdEntry } from '../contacts/schemas.ts';
import { Attributes } from '../conversations/schemas.ts';
import { Rating } from '../csat/schemas.ts';
import { NewMessageSchema } from '../messages/schemas.ts';
import { Text } from '../schemas.ts';

// Bodies of the public interface (docs/chatwoot.md#public-api): only what Chatwoot's public controllers permit.

/** The identity proof of HMAC identity validation (body on create/update, query string on show). */
const identity = {
  identifier: IdentifierEntry,
  identifier_hash: v.optional(v.nullable(Text(255))),
};

export const IdentitySchema = v.object(identity);
export type Identity = v.InferOutput<typeof IdentitySchema>;

const contactFields = {
  name: NameEntry,
  email: EmailEntry,
  phone_number: PhoneEntry,
  avatar_url: AvatarUrlEntry,
  custom_attributes: AttributesEntry,
};

export const PublicNewContactSchema = v.object({ ...contactFields, ...identity, source_id: SourceIdEntry });
export type PublicNewContact = v.InferOutput<typeof PublicNewContactSchema>;

/** `identifier` is accepted but changes nothing (it only serves the HMAC check). */
export const PublicContactUpdateSchema = v.object({ ...contactFields, ...identity });
export type PublicContactUpdate = v.InferOutput<typeof PublicContactUpdateSchema>;

export const PublicNewConversationSchema = v.object({ custom_attributes: v.optional(v.nullable(Attributes)) });
export type PublicNewConversation = v.InferOutput<typeof PublicNewConversationSchema>;

/** Any other value is accepted and does nothing, as in Chatwoot. */
export const TypingSchema = v.object({ typing_status: v.optional(v.nullable(v.unknown())) });

export const PublicNewMessageSchema = v.pick(NewMessageSchema, ['content', 'echo_id', 'attachments']);
export type PublicNewMessage = v.InferOutput<typeof PublicNewMessageSchema>;

const SubmittedValue = v.object({
  name: v.optional(v.nullable(Text(255))),
  title: v.optional(v.nullable(Text(1000))),
  value: v.optional(v.nullable(v.union([v.string(), v.number(), v.boolean()], 'must be a string, number or boolean'))),
  csat_survey_response: v.optional(
    v.object({
      feedback_message: v.optional(v.nullable(Text(10_000))),
      rating: v.optional(v.nullable(Rating)),
    }),
  ),
});

/**
 * Answers to interactive messages: a list of `{name, title, value}` (input_select, form) or one object
 * (the widget sends `{csat_survey_response: {rating, feedback_message}}` for CSAT).
 */
export const SubmittedValues = v.union(
  [v.pipe(v.array(SubmittedValue), v.maxLength(100)), SubmittedValue],
  'must be an object or an array of objects',
);
export const SubmitSchema = v.object({ submitted_values: SubmittedValues });
export type Submit = v.InferOutput<typeof SubmitSchema>;
