import * as v from 'valibot';

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
