import type { AccountRecord, AccountUserRecord, UserRecord } from '#shared/model/identity.ts';
import { userAvatarUrl } from '../conversations/view.ts';

export interface Membership {
  membership: AccountUserRecord;
  account: AccountRecord;
}

/** The membership Chatwoot calls "active": the most recently active one, else the oldest. */
export function activeMembership(memberships: Membership[]): Membership | undefined {
  return [...memberships].sort(
    (a, b) => (b.membership.active_at ?? 0) - (a.membership.active_at ?? 0) || a.membership.id - b.membership.id,
  )[0];
}

/** User JSON (docs/chatwoot.md#platform-users; also the profile): `access_token` is the user's own API token. */
export function userJson(user: UserRecord, accessToken: string, memberships: Membership[]) {
  const active = activeMembership(memberships);
  return {
    id: user.id,
    access_token: accessToken,
    account_id: active?.account.id ?? null,
    available_name: user.display_name || user.name,
    avatar_url: userAvatarUrl(user),
    confirmed: true,
    display_name: user.display_name,
    message_signature: user.message_signature,
    email: user.email,
    name: user.name,
    provider: 'email',
    pubsub_token: user.pubsub_token,
    ...(Object.keys(user.custom_attributes).length ? { custom_attributes: user.custom_attributes } : {}),
    role: active?.membership.role ?? null,
    ui_settings: user.ui_settings,
    uid: user.email,
    type: 'user',
    accounts: memberships.map(({ membership, account }) => ({
      id: account.id,
      name: account.name,
      status: account.status,
      active_at: membership.active_at,
      role: membership.role,
      availability: membership.availability,
      availability_status: membership.availability,
      auto_offline: membership.auto_offline,
      custom_role_id: membership.custom_role_id,
    })),
  };
}

/** The short user of `POST /platform/api/v1/users/{id}/token`. */
export const tokenUserJson = (u: UserRecord) => ({
  id: u.id,
  name: u.name,
  display_name: u.display_name,
  email: u.email,
  pubsub_token: u.pubsub_token,
});
