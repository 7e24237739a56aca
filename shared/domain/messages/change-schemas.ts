import * as v from 'valibot';
import { JsonValue, Text } from '../schemas.ts';
import { MESSAGE_STATUSES } from '#shared/model/messages.ts';

// The bodies of the message routes other than a new message's (schemas.ts): a status update, a direct upload, a
// translation. Apart, a route that validates one carries neither the new message's schema nor its pieces, as each
// schema file a route uses comes whole (docs/cost.md#cold-start).

export const MessageUpdateSchema = v.object({
  status: v.optional(v.picklist(MESSAGE_STATUSES, `must be one of ${MESSAGE_STATUSES.join(', ')}`)),
  external_error: v.optional(v.nullable(Text(1000))),
});
export type MessageUpdate = v.InferOutput<typeof MessageUpdateSchema>;

/** ActiveStorage's direct upload request (`POST …/direct_uploads`). */
export const DirectUploadSchema = v.object({
  blob: v.object({
    filename: v.pipe(Text(255), v.minLength(1, 'is required')),
    byte_size: v.pipe(v.number('must be a number'), v.integer('must be an integer'), v.minValue(0, 'must not be negative')),
    checksum: v.optional(v.nullable(Text(255))),
    content_type: v.optional(v.nullable(Text(255))),
    metadata: v.optional(JsonValue()),
  }),
});
export type DirectUpload = v.InferOutput<typeof DirectUploadSchema>;

/** `POST …/messages/{id}/translate`. */
export const TranslateSchema = v.object({
  target_language: v.pipe(v.string('is required'), v.regex(/^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8})*$/, 'must be a language code')),
});
export type TranslateRequest = v.InferOutput<typeof TranslateSchema>;
