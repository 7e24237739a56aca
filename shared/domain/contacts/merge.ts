import * as repo from '#shared/db/repositories/contacts.ts';
import { listContactConversationLinks, getConversation } from '#shared/db/repositories/conversations.ts';
import { reassignContactMessages } from '#shared/db/repositories/messages.ts';
import { emitContactSignal } from '#shared/db/repositories/signals.ts';
import { retryStale } from '#shared/db/repositories/versioned.ts';
import { invalidField, notFound } from '#shared/errors.ts';
import { mutate, quietly } from '../conversations/mutation.ts';
import type { ConversationRecord } from '#shared/model/conversations.ts';
import type { MessageRecord } from '#shared/model/messages.ts';
import { now } from '#shared/model/time.ts';
import { listContactNotes, moveContactNote } from '#shared/db/repositories/contact-notes.ts';
import { unlinkCompanyContact } from '#shared/db/repositories/companies.ts';
import type { ContactRecord } from '#shared/model/contacts.ts';
import { contactJson } from './view.ts';

// Merging two contacts (Chatwoot's ContactMergeAction; `POST actions/contact_merge`, and the public
// contact update that finds its email or phone on another contact). The mergee's contact inboxes,
// conversations, the messages it sent, its labels and whatever the base lacks move to the base; then the
// mergee is deleted. DynamoDB cannot do that in one transaction (a contact may have many conversations),
// so it runs as steps that are each atomic and each safe to run again, the mergee deleted last:
//   1. each contact inbox moves (item, source-id sentinel) in its own transaction;
//   2. each conversation: its messages' sender moves, then the conversation (contact, its last-message
//      copies) and the contact's conversation link move in one transaction (counters are untouched:
//      they do not depend on the contact);
//   3. each note moves (copy and removal in one transaction);
//   4. one transaction: the base takes the mergee's values where its own are blank (custom and additional
//      attributes merged key by key, the base's winning; labels united) and the mergee goes with its
//      sentinels and listing.
// A failure anywhere leaves two working contacts (each with what it has so far); calling merge again
// with the same ids finishes it.

export type MergeStep = 'contact_inbox' | 'conversation' | 'finish';

export interface MergeOptions {
  /** Called after each step's write (tests inject failures here). */
  afterStep?: (step: MergeStep) => void | Promise<void>;
}

const blank = (v: unknown) => v === null || v === undefined || v === '';

/** The base as it is after the merge: its values, the mergee's where the base's are blank. */
export function mergedContact(base: ContactRecord, mergee: ContactRecord): ContactRecord {
  const pick = <K extends keyof ContactRecord>(k: K) => (blank(base[k]) ? mergee[k] : base[k]);
  const additional = {
    ...mergee.additional_attributes,
    ...Object.fromEntries(Object.entries(base.additional_attributes).filter(([, v]) => !blank(v))),
  };
  const custom = {
    ...mergee.custom_attributes,
    ...Object.fromEntries(Object.entries(base.custom_attributes).filter(([, v]) => !blank(v))),
  };
  const merged: ContactRecord = {
    ...base,
    name: pick('name'),
    email: pick('email'),
    phone_number: pick('phone_number'),
    identifier: pick('identifier'),
    thumbnail: pick('thumbnail'),
    additional_attributes: additional,
    custom_attributes: custom,
    labels: [...new Set([...base.labels, ...mergee.labels])],
    last_activity_at:
      base.last_activity_at === null
        ? mergee.last_activity_at
        : mergee.last_activity_at === null
          ? base.last_activity_at
          : Math.max(base.last_activity_at, mergee.last_activity_at),
    location: pick('location'),
    country_code: pick('country_code'),
  };
  const lead = merged.contact_type === 'visitor' && (merged.email || merged.phone_number || mergee.contact_type !== 'visitor');
  return { ...merged, contact_type: lead ? (mergee.contact_type === 'customer' ? 'customer' : 'lead') : merged.contact_type };
}

const sender = (m: MessageRecord | null, from: number, to: number): MessageRecord | null =>
  m && m.sender_type === 'Contact' && m.sender_id === from ? { ...m, sender_id: to } : m;

/** Step 2 for one conversation: its messages, then the conversation and the contact link. */
async function moveConversation(accountId: number, displayId: number, from: number, to: number) {
  await reassignContactMessages(accountId, displayId, from, to);
  const first = await getConversation(accountId, displayId, true);
  if (!first) return;
  await mutate(first, (c: ConversationRecord) => {
    if (c.contact_id !== from) return { result: undefined };
    const next = quietly(c, {
      contact_id: to,
      last_message: sender(c.last_message, from, to),
      last_non_activity_message: sender(c.last_non_activity_message, from, to),
    });
    return { next, leavesContact: from, result: undefined };
  });
}

/**
 * Merges `mergeeId` into `baseId` (both of the account) and answers the base as it is after. Same id:
 * 422; either absent (or of another account): 404.
 */
export async function mergeContacts(accountId: number, baseId: number, mergeeId: number, opts: MergeOptions = {}): Promise<ContactRecord> {
  if (baseId === mergeeId) throw invalidField('mergee_contact_id', 'must be a different contact than base_contact_id');
  const [base, mergee] = await Promise.all([repo.getContact(accountId, baseId, true), repo.getContact(accountId, mergeeId, true)]);
  if (!base) throw notFound('Contact');
  if (!mergee) throw notFound('Contact');
  for (const ci of await repo.listContactInboxes(accountId, mergeeId)) {
    await retryStale(() => repo.moveContactInbox(ci, baseId));
    await opts.afterStep?.('contact_inbox');
  }
  for (const link of await listContactConversationLinks(accountId, mergeeId)) {
    await moveConversation(accountId, link.conversation_id, mergeeId, baseId);
    await opts.afterStep?.('conversation');
  }
  for (const note of await listContactNotes(accountId, mergeeId)) await moveContactNote(note, baseId);
  const after = await retryStale(async () => {
    const [b, m] = await Promise.all([repo.getContact(accountId, baseId, true), repo.getContact(accountId, mergeeId, true)]);
    if (!b || !m) throw notFound('Contact');
    // Contact inboxes and conversations made meanwhile move too (the mergee must leave nothing behind).
    for (const ci of await repo.listContactInboxes(accountId, mergeeId)) await repo.moveContactInbox(ci, baseId);
    for (const link of await listContactConversationLinks(accountId, mergeeId))
      await moveConversation(accountId, link.conversation_id, mergeeId, baseId);
    for (const note of await listContactNotes(accountId, mergeeId)) await moveContactNote(note, baseId);
    const merged = { ...mergedContact(b, m), updated_at: now(), version: b.version + 1 };
    await repo.finishMerge(b, merged, m);
    return merged;
  });
  // The mergee's company link goes with it (counted out once).
  if (mergee.company_id) await unlinkCompanyContact(accountId, mergee.company_id, mergee.id);
  await opts.afterStep?.('finish');
  // Chatwoot's contact.merged (sockets only): the surviving contact, in its own partition's order.
  await emitContactSignal({
    name: 'contact_merged',
    account_id: accountId,
    conversation_id: null,
    contact_id: baseId,
    inbox_id: null,
    performed_by: null,
    is_private: false,
    data: { mergee_contact_id: mergeeId },
  });
  return after;
}

/** `POST /actions/contact_merge {base_contact_id, mergee_contact_id}`: the base contact's JSON. */
export async function contactMergePayload(accountId: number, input: { base_contact_id: number; mergee_contact_id: number }) {
  return contactJson(await mergeContacts(accountId, input.base_contact_id, input.mergee_contact_id));
}
