import { hashPassword, hashToken, ownerToken, randomId, seal, unseal } from '#shared/crypto/tokens.ts';
import { nextId } from '#shared/db/ids.ts';
import {
  changeUser,
  changeUserEmail,
  createPlatformUser,
  deletePlatformUser,
  getAccounts,
  getUser,
  getUserFresh,
  getUserIdByEmail,
  isPermissible,
  listUserAccounts,
} from '#shared/db/repositories/identity.ts';
import { mergeableByKey, retryStale, sameVersion, type AttributeChanges } from '#shared/db/repositories/versioned.ts';
import { notFound, taken } from '#shared/errors.ts';
import type { UserRecord } from '#shared/model/identity.ts';
import { now } from '#shared/model/time.ts';
import type { NewUser, UserUpdate } from './schemas.ts';
import { tokenUserJson, userJson, type Membership } from './view.ts';

const emailTaken = () => taken('email', 'has already been taken');

async function membershipsOf(userId: number): Promise<Membership[]> {
  const memberships = await listUserAccounts(userId);
  const accounts = await getAccounts(memberships.map((m) => m.account_id));
  return memberships.map((membership, i) => ({ membership, account: accounts[i] })).filter((m): m is Membership => m.account !== undefined);
}

export async function present(user: UserRecord) {
  const [token, memberships] = await Promise.all([unseal(user.sealed_token), membershipsOf(user.id)]);
  return userJson(user, token, memberships);
}

/** A user the platform app created, or 404. */
export async function permittedUser(appId: number, id: number): Promise<UserRecord> {
  const [allowed, user] = await Promise.all([isPermissible(appId, 'USER', id), getUser(id)]);
  if (!allowed || !user) throw notFound('User');
  return user;
}

/**
 * Creates a confirmed user with its API token. Chatwoot hands back any existing user with the same
 * email and grants the caller access to it; here that holds only for a user this app created
 * (an idempotent retry), and another app's email is `taken`.
 */
export async function createUser(appId: number, input: NewUser) {
  const existingId = await getUserIdByEmail(input.email);
  if (existingId !== undefined) {
    if (await isPermissible(appId, 'USER', existingId)) return present(await permittedUser(appId, existingId));
    throw emailTaken();
  }
  const id = await nextId('user');
  const token = ownerToken('user', id);
  const t = now();
  const user: UserRecord = {
    id,
    name: input.name,
    display_name: input.display_name ?? null,
    email: input.email,
    password_hash: input.password ? await hashPassword(input.password) : null,
    custom_attributes: input.custom_attributes ?? {},
    ui_settings: {},
    message_signature: null,
    pubsub_token: randomId(),
    avatar_url: '',
    sealed_token: await seal(token),
    token_hash: hashToken(token),
    created_by_app: appId,
    created_at: t,
    updated_at: t,
  };
  await createPlatformUser(user, appId);
  return userJson(user, token, []);
}

export async function showUser(appId: number, id: number) {
  return present(await permittedUser(appId, id));
}

/**
 * Chatwoot replaces the given fields and merges custom attributes key by key; both are applied on the
 * stored attributes, so any number of concurrent updates all land (the last one wins a field).
 */
export async function updateUser(appId: number, id: number, input: UserUpdate) {
  const first = await permittedUser(appId, id);
  const set = {
    name: input.name,
    display_name: input.display_name,
    password_hash: input.password ? await hashPassword(input.password) : undefined,
    updated_at: now(),
  };
  const attributes = input.custom_attributes ?? {};
  const updated = await retryStale(async (consistent) => {
    const before = consistent ? await getUserFresh(id) : first;
    if (!before) throw notFound('User');
    // Too many keys for one expression: the whole merged map, on condition that nothing moved meanwhile.
    const changes: AttributeChanges = mergeableByKey(attributes)
      ? { set, merge: { custom_attributes: attributes } }
      : {
          set: { ...set, custom_attributes: { ...before.custom_attributes, ...attributes } },
          condition: sameVersion((before as UserRecord & { version?: number }).version),
        };
    const after =
      input.email !== undefined && input.email !== before.email
        ? await changeUserEmail(before, input.email, changes, emailTaken)
        : await changeUser(id, changes);
    if (!after) throw notFound('User');
    return after;
  });
  return present(updated);
}

/**
 * Writes the fields of `updated` that differ from `user` (the last writer wins each field, as in
 * Chatwoot), moving the email claim when the email changed.
 */
export async function saveUser(user: UserRecord, updated: UserRecord): Promise<void> {
  const set: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(updated)) {
    if (field === 'id' || field === 'email' || field === 'version') continue;
    if (JSON.stringify(value) !== JSON.stringify((user as unknown as Record<string, unknown>)[field])) set[field] = value;
  }
  // Custom attributes that only gained or changed keys are merged key by key, so that a concurrent
  // platform merge of other keys is not undone by this write of the whole map as it was read.
  const changes: AttributeChanges = { set };
  const before = user.custom_attributes ?? {};
  const wanted = updated.custom_attributes ?? {};
  if ('custom_attributes' in set && Object.keys(before).every((k) => k in wanted)) {
    const changedKeys = Object.fromEntries(Object.entries(wanted).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(before[k])));
    if (mergeableByKey(changedKeys)) {
      delete set.custom_attributes;
      changes.merge = { custom_attributes: changedKeys };
    }
  }
  const after =
    updated.email !== user.email ? await changeUserEmail(user, updated.email, changes, emailTaken) : await changeUser(user.id, changes);
  if (!after) throw notFound('User');
}

/** Removes the user, its token, its email claim and its memberships. */
export async function deleteUser(appId: number, id: number): Promise<void> {
  const user = await permittedUser(appId, id);
  const memberships = await listUserAccounts(id);
  await deletePlatformUser(
    appId,
    user,
    memberships.map((m) => m.account_id),
  );
}

/** `POST /users/{id}/token`: the user's API token (the same one the record shows). */
export async function userToken(appId: number, id: number) {
  const user = await permittedUser(appId, id);
  return { access_token: await unseal(user.sealed_token), expiry: null, user: tokenUserJson(user) };
}

/** `GET /api/v1/profile`. */
export async function profile(user: UserRecord) {
  return present(user);
}
