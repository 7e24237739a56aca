import { hashToken, resetToken, resetTokenUser, seal, unseal } from '#shared/crypto/tokens.ts';
import { getUser, getUserIdByEmail } from '#shared/db/repositories/identity.ts';
import { getPasswordReset, putPasswordReset, usePasswordReset } from '#shared/db/repositories/sessions.ts';
import { requestMail } from '../mail/outbox.ts';
import type { UserRecord } from '#shared/model/identity.ts';
import { now } from '#shared/model/time.ts';
import { addressScope, takeSlots, throttleEmail, THROTTLES } from '../throttles.ts';
import type { PasswordResetRecord } from '#shared/model/sessions.ts';

// Devise's password reset (Recoverable) for `POST /auth/password` and `PUT /auth/password`.
//
// The request does the same work whatever the email: it takes its throttle slots and writes one mail
// request carrying only the typed email, then answers. Whether a user has that email is found out later,
// by the events pipeline (mail/compose.ts), which issues the link and mails it — so the answer's timing
// tells nothing about the email. Each user has one reset item holding only the newest link's token hash:
// issuing a link replaces it, using one removes it, so a link works once, for 6 hours, and only while no
// newer one was issued or used.

/** Devise's `reset_password_within` default. */
export const PASSWORD_RESET_SECONDS = 6 * 3600;

/** `POST /auth/password`: answered alike for every email. */
export async function requestPasswordReset(emailInput: string, address: string) {
  const email = emailInput.trim().toLowerCase();
  const key = throttleEmail(emailInput);
  await takeSlots(
    [[THROTTLES.resetAddress, addressScope(address)], ...(key ? [[THROTTLES.resetEmail, key] as const] : [])],
    'Too many password reset requests. Please try again later.',
  );
  if (email) await requestMail({ kind: 'password_reset', to: email });
  return { message: 'Request for password reset is successful. Check your mail for instructions.' };
}

/** A mail request for a reset link, as the pipeline reads it. */
export interface ResetRequest {
  id: string;
  to: string;
  created_at: number;
}

/**
 * The link a reset request mails (in the pipeline): the user holding the email and a fresh token, stored as
 * the user's only live link. A retried dispatch of the same request gets the same token back; a request
 * older than one already issued or used, or an email nobody has, get nothing (no mail).
 */
export async function issuePasswordReset(request: ResetRequest): Promise<{ user: UserRecord; token: string } | undefined> {
  const userId = await getUserIdByEmail(request.to.trim().toLowerCase());
  const user = userId === undefined ? undefined : await getUser(userId);
  if (!user) return undefined;
  const current = await getPasswordReset(user.id);
  if (current?.request_id === request.id) {
    return current.sealed_token && current.expires_at > now() ? { user, token: await unseal(current.sealed_token) } : undefined;
  }
  if (current && current.requested_at > request.created_at) return undefined;
  const token = resetToken(user.id);
  const t = now();
  const issued: PasswordResetRecord = {
    user_id: user.id,
    token_hash: hashToken(token),
    sealed_token: await seal(token),
    request_id: request.id,
    requested_at: request.created_at,
    expires_at: t + PASSWORD_RESET_SECONDS,
    created_at: t,
  };
  return (await putPasswordReset(issued)) ? { user, token } : undefined;
}

/** Uses a reset link's token: the user it was issued to, or undefined (unknown, older, used or expired). */
export async function takePasswordReset(token: string): Promise<UserRecord | undefined> {
  const userId = resetTokenUser(token);
  if (userId === undefined) return undefined;
  const used = await usePasswordReset(userId, hashToken(token), now());
  return used ? getUser(userId) : undefined;
}
