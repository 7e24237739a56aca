import * as v from 'valibot';
import { isUploadedFile, type FilePart } from '#shared/model/uploads.ts';
import { Email, Id, JsonObject, RequiredText, Text } from '../schemas.ts';

// Chatwoot's rule (config/initializers/secure_password.rb): 6-128 characters with an upper-case and a
// lower-case letter, a digit and a special character.
export const Password = v.pipe(
  v.string('must be a string'),
  v.minLength(6, 'is too short (minimum is 6 characters)'),
  v.maxLength(128),
  v.check(
    (p) => /[A-Z]/.test(p) && /[a-z]/.test(p) && /\d/.test(p) && /[^A-Za-z0-9]/.test(p),
    'must contain an upper-case letter, a lower-case letter, a digit and a special character',
  ),
);

export const NewUserSchema = v.object({
  name: RequiredText(255),
  email: Email,
  display_name: v.optional(v.nullable(Text(255))),
  // Required, as Chatwoot's user validation requires one: a user without it could never sign in.
  password: Password,
  custom_attributes: v.optional(JsonObject),
});

export const UserUpdateSchema = v.object({
  name: v.optional(RequiredText(255)),
  email: v.optional(Email),
  display_name: v.optional(v.nullable(Text(255))),
  password: v.optional(Password),
  custom_attributes: v.optional(JsonObject),
});

export type NewUser = v.InferOutput<typeof NewUserSchema>;
export type UserUpdate = v.InferOutput<typeof UserUpdateSchema>;

// The profile (`PUT/PATCH /api/v1/profile`, root key `profile`), as Chatwoot's ProfilesController permits it.
export const MAX_AVATAR_BYTES = 4 * 1024 * 1024;
export const MAX_PROFILE_BODY_BYTES = MAX_AVATAR_BYTES + 256 * 1024;
const AVATAR_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

const Avatar = v.pipe(
  v.custom<FilePart>(isUploadedFile, 'must be an uploaded image file'),
  v.check((f) => AVATAR_TYPES.includes(f.content_type.toLowerCase()), 'must be a PNG, JPEG, GIF or WebP image'),
  v.check((f) => f.size > 0, 'is empty'),
  v.check((f) => f.size <= MAX_AVATAR_BYTES, 'is larger than 4 MB'),
);

export const ProfileUpdateSchema = v.object({
  name: v.optional(RequiredText(255)),
  display_name: v.optional(v.nullable(Text(255))),
  email: v.optional(Email),
  message_signature: v.optional(v.nullable(Text(20_000))),
  ui_settings: v.optional(
    v.pipe(
      JsonObject,
      v.check((o) => JSON.stringify(o).length <= 20_000, 'is too long (maximum is 20000 characters)'),
    ),
  ),
  avatar: v.optional(Avatar),
  phone_number: v.optional(v.nullable(Text(32))),
  current_password: v.optional(v.string('must be a string')),
  // Chatwoot's profile changes the password only when one is present: blank is none.
  password: v.optional(v.nullable(Password)),
  password_confirmation: v.optional(v.string('must be a string')),
});

export const AvailabilitySchema = v.object({
  availability: v.picklist(['online', 'offline', 'busy'], 'must be online, offline or busy'),
  account_id: Id,
});

export const ActiveAccountSchema = v.object({ account_id: Id });

export type ProfileUpdate = v.InferOutput<typeof ProfileUpdateSchema>;
