import { hashPassword, hashToken, randomId, verifyPassword } from '#shared/crypto/tokens.ts';
import { getAccountUser, putAccountUser } from '#shared/db/repositories/identity.ts';
import { cancelPasswordReset } from '#shared/db/repositories/sessions.ts';
import { invalidField, notFound, unprocessable } from '#shared/errors.ts';
import { putObject } from '#shared/storage/objects.ts';
import { storedRef } from '#shared/storage/file-urls.ts';
import type { UserRecord } from '#shared/model/identity.ts';
import { now } from '#shared/model/time.ts';
import { revokeSessions } from '../sessions/service.ts';
import type { ProfileUpdate } from './schemas.ts';
import { present, saveUser } from './service.ts';

// The signed-in user's own profile (Chatwoot's ProfilesController).

/**
 * `PUT/PATCH /api/v1/profile`. A new password needs the current one and a matching confirmation; it
 * signs out every other session (Chatwoot's `remove_tokens_after_password_reset`), while the session
 * that changed it, and the user's API access token, keep working.
 */
export async function updateProfile(user: UserRecord, input: ProfileUpdate, currentAccessToken?: string) {
  let password_hash = user.password_hash;
  if (input.password) {
    if (!user.password_hash || !(await verifyPassword(input.current_password ?? '', user.password_hash))) {
      throw invalidField('current_password', 'is invalid', 'invalid');
    }
    if (input.password_confirmation !== undefined && input.password_confirmation !== input.password) {
      throw unprocessable([{ field: 'password_confirmation', message: "doesn't match Password", code: 'confirmation' }]);
    }
    password_hash = await hashPassword(input.password);
  }
  const avatar_url = input.avatar ? await storeAvatar(user.id, input.avatar) : user.avatar_url;
  const updated: UserRecord = {
    ...user,
    name: input.name ?? user.name,
    display_name: input.display_name !== undefined ? input.display_name || null : user.display_name,
    email: input.email ?? user.email,
    message_signature: input.message_signature !== undefined ? input.message_signature : user.message_signature,
    ui_settings: input.ui_settings ?? user.ui_settings,
    custom_attributes:
      input.phone_number !== undefined ? { ...user.custom_attributes, phone_number: input.phone_number } : user.custom_attributes,
    avatar_url,
    password_hash,
    updated_at: Math.max(now(), user.updated_at + 1),
  };
  await saveUser(user, updated);
  if (password_hash !== user.password_hash) {
    await revokeSessions(user.id, currentAccessToken ? hashToken(currentAccessToken) : undefined);
  }
  // Devise clears a pending reset link when the password or the email changes.
  if (password_hash !== user.password_hash || updated.email !== user.email) await cancelPasswordReset(user.id, now());
  return present(updated);
}

async function storeAvatar(userId: number, file: { content_type: string; data: Buffer }) {
  const key = `avatars/users/${userId}/${randomId(12)}.${file.content_type.split('/')[1]}`;
  await putObject(key, file.data, file.content_type);
  return storedRef(key);
}

/** `DELETE /api/v1/profile/avatar`. */
export async function removeProfileAvatar(user: UserRecord) {
  if (!user.avatar_url) return present(user);
  const updated = { ...user, avatar_url: '', updated_at: Math.max(now(), user.updated_at + 1) };
  await saveUser(user, updated);
  return present(updated);
}

async function membership(user: UserRecord, accountId: number) {
  const m = await getAccountUser(accountId, user.id);
  if (!m) throw notFound('Account');
  return m;
}

/** `POST /api/v1/profile/availability`: the user's availability in one of their accounts. */
export async function setAvailability(user: UserRecord, input: { availability: 'online' | 'offline' | 'busy'; account_id: number }) {
  const m = await membership(user, input.account_id);
  await putAccountUser({ ...m, availability: input.availability, updated_at: now() });
  return present(user);
}

/** `PUT /api/v1/profile/set_active_account`: the account the apps open by default. */
export async function setActiveAccount(user: UserRecord, accountId: number) {
  const m = await membership(user, accountId);
  await putAccountUser({ ...m, active_at: now(), updated_at: now() });
}
