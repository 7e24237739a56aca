import * as v from 'valibot';
import { findChannelOwner } from '#shared/db/repositories/channels.ts';
import * as repo from '#shared/db/repositories/inboxes.ts';
import { notFound, unprocessable } from '#shared/errors.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import type { AccountRecord } from '#shared/model/identity.ts';
import { now } from '#shared/model/time.ts';
import { createInbox, type ChannelSetup } from './service.ts';
import type { NewInbox } from './schemas.ts';
import { inboxJson } from './view.ts';

// A Facebook page becomes an inbox (docs/channels.md#facebook-messenger): Chatwoot's
// `POST …/callbacks/register_facebook_page` with the tokens the dashboard's Facebook login produced (the OAuth
// exchange itself is the dashboard's). The page is unique across the installation: its webhooks name it.

const Token = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(2000));

export const RegisterFacebookPageSchema = v.object({
  user_access_token: Token,
  page_access_token: Token,
  page_id: v.pipe(v.union([v.string(), v.number()]), v.transform(String), v.regex(/^\d{1,30}$/, 'is not a page id')),
  inbox_name: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(255)),
});

export type RegisterFacebookPage = v.InferOutput<typeof RegisterFacebookPageSchema>;

/** Chatwoot's answer: the inbox's id, its channel's, name, type, avatar, page and auto-assignment. */
export async function registerFacebookPage(account: AccountRecord, input: RegisterFacebookPage, setup?: ChannelSetup) {
  // An inbox of the common shape, then given the page's channel (no API identifier, no HMAC token) and set up at Meta.
  const inbox = await createInbox(account, { name: input.inbox_name, channel: { type: 'api' } } as NewInbox, async (common) => {
    const page: InboxRecord = {
      ...common,
      channel_type: 'Channel::FacebookPage',
      inbox_identifier: null,
      hmac_token: null,
      hmac_mandatory: null,
      additional_attributes: null,
      page_id: input.page_id,
      page_access_token: input.page_access_token,
      user_access_token: input.user_access_token,
      instagram_id: null,
      reauthorization_required: false,
      authorization_error_count: 0,
    };
    return setup ? setup(page) : page;
  });
  return {
    id: inbox.id,
    channel_id: inbox.channel_id,
    name: inbox.name,
    channel_type: inbox.channel_type,
    avatar_url: inbox.avatar_url,
    page_id: input.page_id,
    enable_auto_assignment: inbox.enable_auto_assignment,
  };
}

export const FacebookPagesSchema = v.object({ omniauth_token: Token });
export const ReauthorizePageSchema = v.object({
  omniauth_token: Token,
  inbox_id: v.pipe(v.union([v.string(), v.number()]), v.transform(Number), v.integer(), v.minValue(1)),
});

/** Which of these pages the account holds as inboxes (Chatwoot's `exists` flags). */
export async function pagesHeld(account: AccountRecord, pageIds: string[]): Promise<Set<string>> {
  const held = await Promise.all(
    pageIds.map(async (id) => ((await findChannelOwner('FACEBOOK', id))?.account_id === account.id ? id : undefined)),
  );
  return new Set(held.filter((id): id is string => !!id));
}

/** The account's page inbox, or 422 (Chatwoot answers a non-page inbox so). */
export async function pageInbox(account: AccountRecord, inboxId: number): Promise<InboxRecord> {
  const inbox = await repo.getInbox(account.id, inboxId);
  if (inbox?.channel_type !== 'Channel::FacebookPage' || !inbox.page_id) {
    throw unprocessable([{ field: 'inbox_id', message: 'is not a Facebook page inbox of this account', code: 'invalid' }]);
  }
  return inbox;
}

/** The page authorized again with new tokens: `reauthorization_required` cleared (Chatwoot's `reauthorized!`). */
export async function reauthorizePage(account: AccountRecord, inbox: InboxRecord, tokens: { page: string; user: string }) {
  const saved = await repo.changeInboxAttributes(account.id, inbox.id, {
    set: {
      page_access_token: tokens.page,
      user_access_token: tokens.user,
      reauthorization_required: false,
      authorization_error_count: 0,
      updated_at: now(),
    },
  });
  if (!saved) throw notFound('Inbox');
  return { data: inboxJson(saved, true) };
}
