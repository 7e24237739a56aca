import type { AccountRecord } from '#shared/model/identity.ts';
import type { InboxRecord, InboxSummary } from '#shared/model/inboxes.ts';
import type { ContactInboxRecord, ContactRecord } from '#shared/model/contacts.ts';
import { fileScope, fileUrl } from '#shared/storage/file-urls.ts';

/** A contact's avatar as clients get it: a signed link of an uploaded file, or the URL a client gave. */
export const contactAvatarUrl = (c: Pick<ContactRecord, 'account_id' | 'thumbnail'>) =>
  fileUrl(c.thumbnail, fileScope.contactAvatar(c.account_id));

/** An inbox's avatar as clients get it (a signed link). */
export const inboxAvatarUrl = (i: Pick<InboxRecord, 'account_id' | 'avatar_url'>) =>
  fileUrl(i.avatar_url, fileScope.inboxAvatar(i.account_id));

/** Contact JSON (docs/chatwoot.md#contact-json); `last_activity_at` is omitted while null, as Chatwoot does. */
export function contactJson(c: ContactRecord) {
  return {
    additional_attributes: c.additional_attributes,
    // No presence tracking: every contact is offline.
    availability_status: 'offline' as const,
    email: c.email,
    id: c.id,
    name: c.name,
    phone_number: c.phone_number,
    blocked: c.blocked,
    identifier: c.identifier,
    thumbnail: contactAvatarUrl(c),
    custom_attributes: c.custom_attributes,
    ...(c.last_activity_at !== null ? { last_activity_at: c.last_activity_at } : {}),
    created_at: c.created_at,
    ...(c.company_id ? { company_id: c.company_id } : {}),
  };
}

/** `push_event_data`: the contact as conversation `meta.sender` and message `sender`. */
export function contactPushJson(c: ContactRecord) {
  return {
    additional_attributes: c.additional_attributes,
    custom_attributes: c.custom_attributes,
    email: c.email,
    id: c.id,
    identifier: c.identifier,
    name: c.name,
    phone_number: c.phone_number,
    thumbnail: contactAvatarUrl(c),
    blocked: c.blocked,
    type: 'contact' as const,
  };
}

/** `webhook_data`: the contact in webhook payloads: push data without `type` (4.10), with its account and `avatar`. */
export function contactWebhookJson(c: ContactRecord, account: Pick<AccountRecord, 'id' | 'name'>) {
  const { type: _type, ...push } = contactPushJson(c);
  return { account: { id: account.id, name: account.name }, avatar: push.thumbnail, ...push };
}

/** Slim inbox (`_inbox_slim`), as inside contact inboxes. */
export function inboxSlimJson(inbox: InboxSummary) {
  return {
    id: inbox.id,
    avatar_url: inboxAvatarUrl(inbox),
    channel_id: inbox.channel_id,
    name: inbox.name,
    channel_type: inbox.channel_type,
    provider: inbox.provider,
  };
}

/** ContactInbox JSON: `{source_id, inbox}`; contact inboxes of inboxes that no longer exist are left out. */
export function contactInboxesJson(cis: ContactInboxRecord[], inboxes: Map<number, InboxRecord>) {
  return cis.flatMap((ci) => {
    const inbox = inboxes.get(ci.inbox_id);
    return inbox ? [{ source_id: ci.source_id, inbox: inboxSlimJson(inbox) }] : [];
  });
}

const iso = (t: unknown) => (typeof t === 'number' ? new Date(t * 1000).toISOString() : (t ?? null));

// Columns of Chatwoot's `inboxes` table, in its order.
const INBOX_ROW_COLUMNS = [
  'id',
  'channel_id',
  'account_id',
  'name',
  'created_at',
  'updated_at',
  'channel_type',
  'enable_auto_assignment',
  'greeting_enabled',
  'greeting_message',
  'email_address',
  'working_hours_enabled',
  'out_of_office_message',
  'timezone',
  'enable_email_collect',
  'csat_survey_enabled',
  'allow_messages_after_resolved',
  'auto_assignment_config',
  'lock_to_single_conversation',
  'portal_id',
  'sender_name_type',
  'business_name',
  'csat_config',
] as const;

/** The raw inbox row Chatwoot puts in `payload.contact_inbox.inbox` on contact create (ISO timestamps). */
export function inboxRowJson(inbox: InboxRecord) {
  const row: Record<string, unknown> = {};
  for (const col of INBOX_ROW_COLUMNS) {
    const value = (inbox as unknown as Record<string, unknown>)[col];
    row[col] = col === 'created_at' || col === 'updated_at' ? iso(value) : (value ?? null);
  }
  return row;
}
