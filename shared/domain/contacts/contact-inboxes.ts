import { randomUUID } from 'node:crypto';
import { locatedPubsubToken } from '#shared/crypto/tokens.ts';
import { nextId } from '#shared/db/ids.ts';
import * as repo from '#shared/db/repositories/contacts.ts';
import { getInbox, getInboxes, listInboxSummaries } from '#shared/db/repositories/inboxes.ts';
import type { Actor } from '#shared/model/actor.ts';
import { invalidField, notFound } from '#shared/errors.ts';
import { inboxScope, visibleInbox } from '../inboxes/access.ts';
import type { InboxRecord, InboxSummary } from '#shared/model/inboxes.ts';
import { now } from '#shared/model/time.ts';
import type { ContactInboxRecord, ContactRecord } from '#shared/model/contacts.ts';
import type { NewContactInbox } from './contact-inbox-schema.ts';
import { contactInboxesJson, contactJson, inboxSlimJson } from './view.ts';

// A contact's contact inboxes (how it is reached in each inbox): source ids as Chatwoot makes them, a new
// one or one taken over from another contact, and the routes that list and create them.

// Inboxes whose source id is the contact's address: when the address changes hands, the new contact
// takes the source id over and the old row is renamed (Chatwoot's ContactInboxBuilder).
const ADDRESS_CHANNELS = new Set(['Channel::Email', 'Channel::Sms', 'Channel::Whatsapp', 'Channel::TwilioSms']);

/** A Twilio inbox addresses a contact by its number, `whatsapp:`-prefixed on the WhatsApp medium. */
const twilioAddress = (inbox: Pick<InboxRecord, 'medium'>, phone: string) => (inbox.medium === 'whatsapp' ? `whatsapp:${phone}` : phone);

function generateSourceId(contact: ContactRecord, inbox: InboxRecord): string {
  const missing = (what: string) => invalidField('source_id', `cannot be generated: the contact has no ${what}`, 'required');
  switch (inbox.channel_type) {
    case 'Channel::Api':
    case 'Channel::WebWidget':
      return randomUUID();
    case 'Channel::Email':
      if (!contact.email) throw missing('email');
      return contact.email;
    case 'Channel::Sms':
      if (!contact.phone_number) throw missing('phone number');
      return contact.phone_number;
    case 'Channel::Whatsapp':
      if (!contact.phone_number) throw missing('phone number');
      return contact.phone_number.replace(/^\+/, '');
    case 'Channel::TwilioSms':
      if (!contact.phone_number) throw missing('phone number');
      return twilioAddress(inbox, contact.phone_number);
    default:
      throw invalidField('source_id', `is required for ${inbox.channel_type} inboxes`, 'required');
  }
}

/** The contact inbox to use, and whether to write it (not when the contact already has this source id in the inbox). */
export type Plan = { record: ContactInboxRecord; write?: repo.ContactInboxWrite };

export async function planContactInbox(
  contact: ContactRecord,
  inbox: InboxRecord,
  sourceId: string | undefined,
  hmacVerified: boolean,
): Promise<Plan> {
  const source = sourceId ?? generateSourceId(contact, inbox);
  const existing = await repo.findContactInbox(inbox.id, source);
  if (existing?.contact_id === contact.id) return { record: existing };
  const t = now();
  const record: ContactInboxRecord = {
    id: await nextId('contact_inbox'),
    account_id: contact.account_id,
    contact_id: contact.id,
    inbox_id: inbox.id,
    source_id: source,
    pubsub_token: locatedPubsubToken(contact.account_id, contact.id, inbox.id),
    hmac_verified: hmacVerified,
    created_at: t,
    updated_at: t,
  };
  if (!existing) return { record, write: { record } };
  // An address that changed hands moves; so does a source id left by a contact deleted while its contact
  // inbox was being written (repo.writeContactInbox is not a transaction with a check of the contact).
  if (ADDRESS_CHANNELS.has(inbox.channel_type) || !(await repo.getContact(existing.account_id, existing.contact_id))) {
    return { record, write: { record, takeOver: { from: existing, renamedSourceId: `${source}:${randomUUID()}` } } };
  }
  throw invalidField('source_id', 'has already been taken', 'taken');
}

async function attachInbox(contact: ContactRecord, inbox: InboxRecord, sourceId: string | undefined, hmacVerified: boolean) {
  const plan = await planContactInbox(contact, inbox, sourceId, hmacVerified);
  const takeOver = plan.write?.takeOver;
  if (!plan.write) return plan.record;
  // A plain new contact inbox is two plain writes (repo.writeContactInbox says what a crash leaves);
  // taking a source id over from another contact stays one transaction.
  if (!takeOver) return repo.writeContactInbox(plan.record);
  try {
    await repo.takeOverSourceId({ record: plan.record, takeOver });
  } catch (err) {
    if (err instanceof repo.StaleContact) throw notFound('Contact');
    throw err;
  }
  return plan.record;
}

/**
 * The contact's contact inbox for a source id in an inbox, created when absent. Without a source id one is generated
 * per channel (docs/chatwoot.md#contact-inboxes-and-source-ids): a UUID for API and web widget inboxes, the contact's
 * email for email inboxes, its phone for SMS (WhatsApp: without `+`); other channels need one (422).
 */
export async function ensureContactInbox(
  accountId: number,
  contactId: number,
  inboxId: number,
  sourceId?: string,
  opts: { hmacVerified?: boolean } = {},
): Promise<ContactInboxRecord> {
  const [contact, inbox] = await Promise.all([repo.getContact(accountId, contactId), getInbox(accountId, inboxId)]);
  if (!contact) throw notFound('Contact');
  if (!inbox) throw notFound('Inbox');
  return attachInbox(contact, inbox, sourceId, opts.hmacVerified ?? false);
}

/** `ensureContactInbox` for a caller that already read the contact and the inbox (no second read). */
export const ensureContactInboxOf = (
  contact: ContactRecord,
  inbox: InboxRecord,
  sourceId?: string,
  opts: { hmacVerified?: boolean } = {},
) => attachInbox(contact, inbox, sourceId, opts.hmacVerified ?? false);

/** The public interface's identity check (HMAC) passed for this contact inbox; 404 once it is gone. */
export async function markContactInboxVerified(ci: ContactInboxRecord): Promise<ContactInboxRecord> {
  if (ci.hmac_verified) return ci;
  const after = { ...ci, hmac_verified: true, updated_at: now() };
  if (!(await repo.setContactInboxVerified(after))) throw notFound('Contact');
  return after;
}

export async function inboxesById(accountId: number, ids: number[]): Promise<Map<number, InboxRecord>> {
  const distinct = [...new Set(ids)];
  if (!distinct.length) return new Map();
  const found = await getInboxes(accountId, distinct);
  return new Map(found.filter((i): i is InboxRecord => !!i).map((i) => [i.id, i]));
}

export async function withInboxesJson(c: ContactRecord, cis: ContactInboxRecord[]) {
  return {
    ...contactJson(c),
    contact_inboxes: contactInboxesJson(
      cis,
      await inboxesById(
        c.account_id,
        cis.map((ci) => ci.inbox_id),
      ),
    ),
  };
}

/** `POST /contacts/{id}/contact_inboxes`: the caller must see the inbox. */
export async function createContactInboxPayload(accountId: number, actor: Actor, contactId: number, input: NewContactInbox) {
  const contact = await repo.getContact(accountId, contactId);
  if (!contact) throw notFound('Contact');
  const inbox = await visibleInbox(accountId, actor, input.inbox_id);
  const ci = await attachInbox(contact, inbox, input.source_id ?? undefined, input.hmac_verified ?? false);
  return { source_id: ci.source_id, inbox: inboxSlimJson(inbox) };
}

/**
 * Inboxes the caller can see through which the contact could be reached, with the source id to use
 * (Chatwoot's ContactableInboxesService): API → its latest source id there or a fresh UUID; web widget →
 * only where it has a contact inbox; email → its email; SMS → its phone; WhatsApp → its phone without `+`.
 */
export async function contactableInboxes(accountId: number, actor: Actor, contactId: number) {
  const [{ contact, inboxes: cis }, scope, all] = await Promise.all([
    repo.getContactWithInboxes(accountId, contactId),
    inboxScope(accountId, actor),
    listInboxSummaries(accountId),
  ]);
  if (!contact) throw notFound('Contact');
  const latest = (inboxId: number) =>
    cis.filter((ci) => ci.inbox_id === inboxId).sort((a, b) => b.created_at - a.created_at || b.id - a.id)[0]?.source_id;
  const sourceFor = (inbox: InboxSummary): string | undefined => {
    switch (inbox.channel_type) {
      case 'Channel::Api':
        return latest(inbox.id) ?? randomUUID();
      case 'Channel::WebWidget':
        return latest(inbox.id);
      case 'Channel::Email':
        return contact.email ?? undefined;
      case 'Channel::Sms':
        return contact.phone_number ?? undefined;
      case 'Channel::Whatsapp':
        return contact.phone_number?.replace(/^\+/, '');
      case 'Channel::TwilioSms':
        return contact.phone_number ? twilioAddress(inbox, contact.phone_number) : undefined;
      default:
        return undefined;
    }
  };
  const payload = all
    .filter((inbox) => scope === 'all' || scope.has(inbox.id))
    .flatMap((inbox) => {
      const source_id = sourceFor(inbox);
      return source_id === undefined ? [] : [{ source_id, inbox: inboxSlimJson(inbox) }];
    });
  return { payload };
}
