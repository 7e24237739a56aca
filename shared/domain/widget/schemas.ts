import * as v from 'valibot';
import { AvatarUrlEntry, EmailEntry, IdentifierEntry, NameEntry, PhoneEntry } from '../contacts/schemas.ts';
import { Attributes } from '../conversations/schemas.ts';
import { Content, MAX_ATTACHMENTS } from '../messages/content.ts';
import { Attachment as MessageAttachment } from '../messages/schemas.ts';
import { SubmittedValues } from '../public/schemas.ts';
import { Id, JsonObject, Text } from '../schemas.ts';

// Body of `POST /api/v1/widget/events`. Chatwoot's widget raises `webwidget.triggered` when a visitor
// opens it and `campaign.triggered` when it runs a campaign (`event_info.campaign_id`).

export const WIDGET_EVENTS = ['webwidget.triggered', 'campaign.triggered'] as const;

/** Kept on the event's signal item and sent in every webhook: small enough for both. */
const MAX_EVENT_INFO = 16_384;

const EventInfo = v.pipe(
  // JsonObject would take an array (valibot's record turns it into an object of indexes).
  v.unknown(),
  v.check((x) => !Array.isArray(x), 'must be an object'),
  JsonObject,
  v.check((o) => JSON.stringify(o).length <= MAX_EVENT_INFO, `is too long (maximum is ${MAX_EVENT_INFO} characters of JSON)`),
);

export const WidgetEventSchema = v.object({
  name: v.picklist(WIDGET_EVENTS, `must be one of ${WIDGET_EVENTS.join(', ')}`),
  event_info: v.optional(v.nullable(EventInfo)),
});

// Bodies of the widget's chat routes: only what Chatwoot's widget controllers permit.

const WidgetContactFields = v.object({
  name: NameEntry,
  email: EmailEntry,
  phone_number: PhoneEntry,
  custom_attributes: v.optional(v.nullable(Attributes)),
});

/** What the widget says about the page a message was written on (kept on a new conversation). */
const pageFields = {
  timestamp: v.optional(v.nullable(Text(255))),
  referer_url: v.optional(v.nullable(Text(2048))),
};

export const WidgetNewConversationSchema = v.object({
  contact: v.optional(v.nullable(WidgetContactFields)),
  message: v.optional(
    v.nullable(
      v.object({
        content: v.optional(v.nullable(Content)),
        echo_id: v.optional(v.nullable(Text(255))),
        ...pageFields,
      }),
    ),
  ),
  custom_attributes: v.optional(v.nullable(Attributes)),
});
export type WidgetNewConversation = v.InferOutput<typeof WidgetNewConversationSchema>;

/** `POST /messages` (nested under `message`, JSON or multipart with `message[attachments][]`). */
/** An uploaded file, or the `signed_id` of a direct upload. */
const Attachment = v.union([MessageAttachment, Text(4096)], 'must be uploaded files or signed ids');

export const WidgetNewMessageSchema = v.object({
  content: v.optional(v.nullable(Content)),
  attachments: v.optional(v.pipe(v.array(Attachment, 'must be uploaded files or signed ids'), v.maxLength(MAX_ATTACHMENTS))),
  echo_id: v.optional(v.nullable(Text(255))),
  reply_to: v.optional(
    v.nullable(
      v.union([Id, v.pipe(v.string(), v.regex(/^\d{1,15}$/, 'must be a message id'), v.transform(Number))], 'must be a message id'),
    ),
  ),
  ...pageFields,
});
export type WidgetNewMessage = v.InferOutput<typeof WidgetNewMessageSchema>;

/** `PATCH /messages/{id}`: the answer to an interactive message; input_email sends the address as `contact.email`. */
export const WidgetMessageUpdateSchema = v.object({
  message: v.optional(
    v.nullable(v.object({ submitted_values: v.optional(SubmittedValues), submitted_email: v.optional(v.nullable(Text(255))) })),
  ),
  contact: v.optional(v.nullable(v.object({ email: EmailEntry }))),
});
export type WidgetMessageUpdate = v.InferOutput<typeof WidgetMessageUpdateSchema>;

/** `PATCH /contact` and `PATCH /contact/set_user` (top level, as the widget sends them). */
export const WidgetContactSchema = v.object({
  name: NameEntry,
  email: EmailEntry,
  phone_number: PhoneEntry,
  avatar_url: AvatarUrlEntry,
  identifier: IdentifierEntry,
  identifier_hash: v.optional(v.nullable(Text(255))),
  custom_attributes: v.optional(v.nullable(Attributes)),
});
export type WidgetContact = v.InferOutput<typeof WidgetContactSchema>;

const Keys = v.pipe(
  v.union(
    [
      v.pipe(
        Text(255),
        v.transform((s) => [s]),
      ),
      v.array(Text(255), 'must be attribute names'),
    ],
    'must be attribute names',
  ),
  v.maxLength(100),
);

export const DestroyConversationAttributesSchema = v.object({ custom_attribute: v.optional(v.nullable(Keys)) });
export const DestroyContactAttributesSchema = v.object({ custom_attributes: v.optional(v.nullable(Keys)) });
export const WidgetCustomAttributesSchema = v.object({ custom_attributes: v.optional(v.nullable(Attributes)) });
export const WidgetLabelSchema = v.object({ label: v.optional(v.nullable(Text(255))) });
export const WidgetTypingSchema = v.object({ typing_status: v.optional(v.nullable(v.unknown())) });

/** `POST /direct_uploads` (ActiveStorage's blob fields). */
export { DirectUploadSchema, type DirectUpload } from '../messages/change-schemas.ts';
