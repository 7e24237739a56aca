import { findChannelOwner } from '#shared/db/repositories/channels.ts';
import * as repo from '#shared/db/repositories/inboxes.ts';
import { notFound, unprocessable } from '#shared/errors.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import type { AccountRecord } from '#shared/model/identity.ts';
import { now } from '#shared/model/time.ts';
import { createInbox } from './service.ts';
import type { NewInbox } from './schemas.ts';

// An Instagram account connected through Instagram's own login (Chatwoot's `Channel::Instagram`,
// docs/channels.md#instagram-login): its OAuth callback creates the inbox, named after the account's username, or
// gives the account's existing inbox its new token (Chatwoot's `reauthorized!`). The account is unique across the
// installation: its webhooks name it.

export interface InstagramLogin {
  /** The Instagram account (`user_id` of Instagram's `me`). */
  instagramId: string;
  username: string;
  accessToken: string;
  /** Unix seconds. */
  expiresAt: number;
}

/** The account's inbox of this Instagram account, with the new token; or a new inbox. `existed`: it was there. */
export async function connectInstagram(account: AccountRecord, login: InstagramLogin): Promise<{ inbox: InboxRecord; existed: boolean }> {
  const owner = await findChannelOwner('INSTAGRAM_LOGIN', login.instagramId);
  if (owner && owner.account_id !== account.id) {
    throw unprocessable([{ field: 'instagram_id', message: 'has already been taken', code: 'taken' }]);
  }
  if (owner) {
    const saved = await repo.changeInboxAttributes(account.id, owner.inbox_id, {
      set: {
        access_token: login.accessToken,
        expires_at: login.expiresAt,
        reauthorization_required: false,
        authorization_error_count: 0,
        updated_at: now(),
      },
    });
    if (!saved) throw notFound('Inbox');
    return { inbox: saved, existed: true };
  }
  // An inbox of the common shape, then given the Instagram channel (no API identifier, no HMAC token).
  const json = await createInbox(account, { name: login.username, channel: { type: 'api' } } as NewInbox, async (common) => ({
    ...common,
    channel_type: 'Channel::Instagram',
    inbox_identifier: null,
    hmac_token: null,
    hmac_mandatory: null,
    additional_attributes: null,
    instagram_id: login.instagramId,
    access_token: login.accessToken,
    expires_at: login.expiresAt,
    reauthorization_required: false,
    authorization_error_count: 0,
  }));
  const inbox = await repo.getInbox(account.id, json.id);
  if (!inbox) throw notFound('Inbox');
  return { inbox, existed: false };
}

/** A refreshed long-lived token (docs/channels.md#instagram-login). */
export async function saveInstagramToken(inbox: InboxRecord, accessToken: string, expiresAt: number): Promise<void> {
  await repo.changeInboxAttributes(inbox.account_id, inbox.id, {
    set: { access_token: accessToken, expires_at: expiresAt, updated_at: now() },
  });
}
