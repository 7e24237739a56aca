import * as v from 'valibot';
import { isUploadedFile, type FilePart } from '#shared/model/uploads.ts';
import { Bool, Email, HttpUrl, Id, JsonObject, Text } from '../schemas.ts';

// Empty strings clear a field (Chatwoot stores blank email/phone/identifier as null).
const blankToNull = (s: string) => (s === '' ? null : s);

const EmailField = v.pipe(
  v.string('must be a string'),
  v.trim(),
  v.check((s) => s === '' || v.is(Email, s), 'is not a valid email address'),
  v.toLowerCase(),
  v.transform(blankToNull),
);

/** E.164 as Chatwoot checks it: `+`, then 2-15 digits not starting with 0. */
const PhoneField = v.pipe(
  v.string('must be a string'),
  v.trim(),
  v.check((s) => s === '' || /^\+[1-9]\d{1,14}$/.test(s), 'should be in e164 format'),
  v.transform(blankToNull),
);

const IdentifierField = v.pipe(Text(255), v.transform(blankToNull));

// Chatwoot caps text columns at 20 000 characters; attribute hashes get the same bound here so that
// a contact always fits in one item.
const Attributes = v.pipe(
  JsonObject,
  v.check((o) => JSON.stringify(o).length <= 20_000, 'is too long (maximum is 20000 characters)'),
);

export const AVATAR_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/** An uploaded image (multipart `avatar`). */
const Avatar = v.pipe(
  v.custom<FilePart>(isUploadedFile, 'must be an uploaded image file'),
  v.check((f) => AVATAR_TYPES.includes(f.content_type), `must be one of ${AVATAR_TYPES.join(', ')}`),
);

// A contact's fields as a body takes them, each apart so that other interfaces' bodies (public, widget) take them by
// name: an entry read off an object at load (`NewContactSchema.entries.email`) keeps the object in every bundle.
export const NameEntry = v.optional(v.nullable(Text(255)));
export const EmailEntry = v.optional(v.nullable(EmailField));
export const PhoneEntry = v.optional(v.nullable(PhoneField));
export const IdentifierEntry = v.optional(v.nullable(IdentifierField));
export const AvatarUrlEntry = v.optional(v.nullable(v.union([v.literal(''), HttpUrl], 'must be an http or https URL')));
export const AttributesEntry = v.optional(v.nullable(Attributes));
export const SourceIdEntry = v.optional(v.nullable(v.pipe(Text(255), v.transform(blankToNull))));

const fields = {
  name: NameEntry,
  email: EmailEntry,
  phone_number: PhoneEntry,
  identifier: IdentifierEntry,
  blocked: v.optional(Bool),
  avatar_url: AvatarUrlEntry,
  // Blank (`""`, null) removes the avatar, as Rails' ActiveStorage does for an attachment assigned blank.
  avatar: v.optional(v.nullable(Avatar)),
  additional_attributes: AttributesEntry,
  custom_attributes: AttributesEntry,
};

export const NewContactSchema = v.object({
  ...fields,
  inbox_id: v.optional(v.nullable(Id)),
  source_id: SourceIdEntry,
});
export type NewContact = v.InferOutput<typeof NewContactSchema>;

export const ContactUpdateSchema = v.object(fields);
export type ContactUpdate = v.InferOutput<typeof ContactUpdateSchema>;

/**
 * Label lists as acts-as-taggable keeps them: comma-separated entries split, whitespace stripped,
 * blanks dropped, duplicates (ignoring case) removed keeping the first spelling.
 */
export function normalizeLabels(labels: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const label of labels.flatMap((l) => l.split(','))) {
    const t = label.trim();
    if (!t || seen.has(t.toLowerCase())) continue;
    seen.add(t.toLowerCase());
    out.push(t);
  }
  return out;
}

export const LabelsSchema = v.object({
  // Absent or null clears the list, as Chatwoot's `label_list = nil` does.
  labels: v.optional(
    v.nullable(
      v.pipe(
        v.array(v.pipe(v.string('must be a string'), v.maxLength(255)), 'must be an array of strings'),
        v.maxLength(100),
        v.transform(normalizeLabels),
      ),
    ),
  ),
});

export const DestroyCustomAttributesSchema = v.object({
  custom_attributes: v.optional(v.nullable(v.array(v.string('must be a string'), 'must be an array of strings'))),
});
export type DestroyCustomAttributes = v.InferOutput<typeof DestroyCustomAttributesSchema>;

export const SORTS = ['name', 'email', 'phone_number', 'last_activity_at', 'created_at', 'company', 'city', 'country'] as const;
export type SortField = (typeof SORTS)[number];

/** A contact note's body (`note: {content}` or top level); Chatwoot requires the content. */
const NoteContent = v.pipe(v.string('must be a string'), v.trim(), v.minLength(1, "can't be blank"), v.maxLength(20000));
export const ContactNoteSchema = v.object({ content: NoteContent });
export type ContactNoteInput = v.InferOutput<typeof ContactNoteSchema>;

/**
 * `POST /contacts/export`: Chatwoot's `column_names` (a list, or one comma-separated string), the filter's
 * `payload` (as `POST /contacts/filter`), or a `label`.
 */
export const ContactsExportSchema = v.object({
  column_names: v.optional(
    v.nullable(
      v.pipe(
        v.union(
          [v.array(v.pipe(v.string('must be a string'), v.maxLength(64))), v.pipe(v.string(), v.maxLength(2000))],
          'must be a list of column names',
        ),
        v.transform((c) => (typeof c === 'string' ? c.split(',') : c).map((s) => s.trim()).filter(Boolean)),
      ),
    ),
  ),
  payload: v.optional(v.nullable(v.pipe(v.array(v.unknown(), 'must be an array of conditions'), v.maxLength(50)))),
  label: v.optional(v.nullable(v.pipe(v.string('must be a string'), v.maxLength(255)))),
});

/** Node's `Buffer#toJSON()`: `{type: 'Buffer', data: [bytes]}`. */
const isBufferJson = (x: unknown): x is { type: 'Buffer'; data: number[] } => {
  if (typeof x !== 'object' || x === null || (x as { type?: unknown }).type !== 'Buffer') return false;
  const data = (x as { data?: unknown }).data;
  if (!Array.isArray(data)) return false;
  for (const b of data) if (typeof b !== 'number' || !Number.isInteger(b) || b < 0 || b > 255) return false;
  return true;
};

/**
 * The n8n node's upload (RenatoAscencio/n8n-nodes-chatwoot): its `httpRequest` sends a body of plain objects as JSON,
 * so `import_file: {value: <Buffer>, options: {filename, contentType}}` arrives with the bytes as Node's Buffer JSON.
 */
const NodeFile = v.pipe(
  v.object({
    value: v.custom<{ type: 'Buffer'; data: number[] }>(isBufferJson, 'must be the file'),
    options: v.optional(v.looseObject({ filename: v.optional(v.string()) })),
  }),
  v.transform((f) => ({ data: Buffer.from(f.value.data) })),
);

/**
 * `POST /contacts/import`: Chatwoot's multipart `import_file` (or the n8n node's JSON form of it); absent or blank,
 * the service answers Chatwoot's 422 `File is blank`.
 */
export const ContactsImportSchema = v.object({
  import_file: v.optional(
    v.nullable(
      v.union(
        [
          v.pipe(
            v.custom<FilePart>(isUploadedFile),
            v.transform((f) => ({ data: f.data })),
          ),
          NodeFile,
          v.pipe(
            v.literal(''),
            v.transform(() => null),
          ),
        ],
        'must be a CSV file (a multipart/form-data file part)',
      ),
    ),
  ),
});
