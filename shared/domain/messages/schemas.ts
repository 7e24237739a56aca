import * as v from 'valibot';
import { Bool, Id, JsonObject, JsonValue, maxJsonBytes, Text } from '../schemas.ts';
import { isUploadedFile, type FilePart, type UploadedFile } from '#shared/model/uploads.ts';
import { CONTENT_TYPES, MESSAGE_TYPES, type MessageTypeName } from '#shared/model/messages.ts';
import { Content, MAX_ATTACHMENTS } from './content.ts';

/** The name, or its integer (Chatwoot's enum accepts both). */
const MessageTypeField = v.union(
  [
    v.picklist(MESSAGE_TYPES),
    v.pipe(
      v.union([v.number(), v.string()]),
      v.transform(Number),
      v.picklist([0, 1, 2, 3] as const),
      v.transform((n) => MESSAGE_TYPES[n] as MessageTypeName),
    ),
  ],
  `must be one of ${MESSAGE_TYPES.join(', ')}`,
);

/** An object, or a JSON string of one; an unparsable string counts as `{}` as in Chatwoot. */
const ContentAttributes = v.pipe(
  v.union(
    [
      v.record(v.string(), v.unknown()),
      v.pipe(
        v.string(),
        v.transform((s) => {
          try {
            const o = JSON.parse(s);
            return o && typeof o === 'object' && !Array.isArray(o) ? (o as Record<string, unknown>) : {};
          } catch {
            return {};
          }
        }),
      ),
    ],
    'must be an object',
  ),
  maxJsonBytes<Record<string, unknown>>(),
);

export type { UploadedFile } from '#shared/model/uploads.ts';

const File = v.custom<FilePart>(isUploadedFile, 'must be an uploaded file');
/** A file in the body, or the `signed_id` of a direct upload (ActiveStorage), as Chatwoot accepts both. */
export const Attachment = v.union([File, v.pipe(v.string(), v.minLength(1), v.maxLength(4096))], 'must be uploaded files or signed ids');

const Emails = v.pipe(
  Text(1000),
  v.check(
    (s) => s === '' || s.split(',').every((e) => /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(e.trim())),
    'must be comma-separated email addresses',
  ),
);

export const NewMessageSchema = v.object({
  content: v.optional(v.nullable(Content)),
  message_type: v.optional(MessageTypeField),
  private: v.optional(Bool),
  content_type: v.optional(v.picklist(CONTENT_TYPES, `must be one of ${CONTENT_TYPES.join(', ')}`)),
  content_attributes: v.optional(v.nullable(ContentAttributes)),
  echo_id: v.optional(Text(255)),
  source_id: v.optional(v.nullable(Text(255))),
  template_params: v.optional(
    v.pipe(
      JsonObject,
      v.check((o) => typeof o.name === 'string' && o.name !== '', 'needs a name'),
    ),
  ),
  campaign_id: v.optional(Id),
  sender_type: v.optional(v.picklist(['AgentBot'], 'must be AgentBot')),
  sender_id: v.optional(Id),
  // Kept in content_attributes as sent (Chatwoot's clients send Unix seconds).
  external_created_at: v.optional(JsonValue(255)),
  cc_emails: v.optional(Emails),
  bcc_emails: v.optional(Emails),
  to_emails: v.optional(Emails),
  attachments: v.optional(v.pipe(v.array(Attachment, 'must be uploaded files or signed ids'), v.maxLength(MAX_ATTACHMENTS))),
});
/** Attachments are files, or direct uploads named by signed id (resolved against the conversation). */
export type NewMessage = Omit<v.InferOutput<typeof NewMessageSchema>, 'attachments'> & { attachments?: (string | UploadedFile)[] };
