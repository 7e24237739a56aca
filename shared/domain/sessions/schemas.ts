import * as v from 'valibot';
import { Password } from '../users/schemas.ts';

// devise_token_auth reads these loosely: anything missing or of the wrong type is simply a failed
// sign-in (401), never a validation error that would tell a guesser which field was wrong.
const Loose = v.optional(v.fallback(v.string(), ''), '');

export const SignInSchema = v.object({
  email: Loose,
  password: Loose,
  sso_auth_token: Loose,
});

export const PasswordResetRequestSchema = v.object({
  email: Loose,
});

export type SignIn = v.InferOutput<typeof SignInSchema>;

/** `PUT /auth/password`: the emailed token and the new password. */
export const PasswordResetSchema = v.object({
  reset_password_token: v.pipe(v.string('must be a string'), v.minLength(1, 'is required')),
  password: Password,
  password_confirmation: v.string('must be a string'),
});

export type PasswordReset = v.InferOutput<typeof PasswordResetSchema>;
