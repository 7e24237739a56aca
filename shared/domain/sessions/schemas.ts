import * as v from 'valibot';
import { Password } from '../users/schemas.ts';

// devise_token_auth reads these loosely: anything missing or of the wrong type is simply a failed
// sign-in (401), never a validation error that would tell a guesser which field was wrong.
const Loose = v.optional(v.fallback(v.string(), ''), '');
// Except an email longer than any user's can be (Email's bound): refused (422 too_long) before it is
// looked up, which tells a guesser nothing about the accounts.
const LooseEmail = v.optional(v.pipe(v.fallback(v.string(), ''), v.trim(), v.maxLength(255)), '');

export const SignInSchema = v.object({
  email: LooseEmail,
  password: Loose,
  sso_auth_token: Loose,
});

export const PasswordResetRequestSchema = v.object({
  email: LooseEmail,
});

export type SignIn = v.InferOutput<typeof SignInSchema>;

/** `PUT /auth/password`: the emailed token and the new password. */
export const PasswordResetSchema = v.object({
  reset_password_token: v.pipe(v.string('must be a string'), v.minLength(1, 'is required')),
  password: Password,
  password_confirmation: v.string('must be a string'),
});

export type PasswordReset = v.InferOutput<typeof PasswordResetSchema>;
