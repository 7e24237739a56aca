import * as v from 'valibot';
import { Email, JsonObject, RequiredText, Text } from '../schemas.ts';

// Chatwoot's rule (config/initializers/secure_password.rb): 6-128 characters with an upper-case and a
// lower-case letter, a digit and a special character.
const Password = v.pipe(
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
