import * as contactsRepo from '#shared/db/repositories/contacts.ts';
import { byActivityDesc, getConversations, isWhole, type ConversationRow } from '#shared/db/repositories/conversations.ts';
import { listAttributeDefinitions } from '#shared/db/repositories/custom-attributes.ts';
import type { Actor } from '#shared/model/actor.ts';
import { unprocessable } from '#shared/errors.ts';
import type { ContactRecord } from '#shared/model/contacts.ts';
import { contactsJson, includeInboxes } from '../contacts/listing.ts';
import type { ConversationRecord } from '#shared/model/conversations.ts';
import { conversationsJson } from '../conversations/view.ts';
import { countersFor, pageByActivity, pageRecords, scopeConversations, type Combination } from '../conversations/pages.ts';
import { withRefsCache } from '../conversations/refs-cache.ts';
import type { AttributeModel } from '#shared/model/custom-attributes.ts';
import { inboxScope } from '../inboxes/access.ts';
import type { AccountRecord } from '#shared/model/identity.ts';
import { now } from '#shared/model/time.ts';
import { evaluate, exactLookups, FilterError, parseFilter, UNKNOWN, type Condition, type FilterModel } from './language.ts';
import { pageNumber } from '../paging.ts';

// POST contacts/filter and conversations/filter (docs/chatwoot.md#contact-routes-and-lists,
// docs/chatwoot.md#lists-counts-search-and-filters). Both first judge every item of the account's compact projection
// (contacts: the listing partition AP46; conversations: the slim activity-index rows AP63 of the inboxes and statuses
// the filter can match), which settles every condition on a projected field; only items a condition on another field
// leaves open (custom and additional attributes, a contact's blocked flag, country code or company) are read in full
// (AP41 / AP61) and judged again. Then the page is read. A conversation filter whose conditions only name what the
// counters hold (status, inbox, team, assignee: n8n's `status = open`) is counted from the counters and its page read
// like a list's (conversations/pages.ts), so its cost does not grow with the account.

const CONTACTS_PAGE = 15;
/** Contact fields unique per account whose holder one GetItem finds (AP45), compared exactly by the filter (email lower-cased). */
const EXACT_KEYS = ['email', 'phone_number'] as const;
const CONVERSATIONS_PAGE = 25;

type Body = Record<string, unknown>;

async function conditionsOf(accountId: number, model: FilterModel, body: Body): Promise<Condition[]> {
  const attributeModel: AttributeModel = model === 'contacts' ? 'contact_attribute' : 'conversation_attribute';
  const definitions = (await listAttributeDefinitions(accountId)).filter((d) => d.attribute_model === attributeModel);
  try {
    return parseFilter(model, body.payload, definitions, now());
  } catch (err) {
    if (err instanceof FilterError) throw unprocessable([{ field: err.field, message: err.message, code: err.code }], err.message);
    throw err;
  }
}

// ── contacts ────────────────────────────────────────────────────────────────────────────────────

/** What the listing item holds of a contact; the rest is UNKNOWN there. */
function listingReader(l: contactsRepo.ContactListing) {
  return (c: Condition): unknown => {
    if (c.custom) return UNKNOWN;
    switch (c.key) {
      case 'name':
        return l.name;
      case 'email':
        return l.email;
      case 'phone_number':
        return l.phone_number;
      case 'identifier':
        return l.identifier;
      case 'city':
        return l.city;
      case 'labels':
        return l.labels;
      case 'created_at':
        return l.created_at;
      case 'last_activity_at':
        return l.last_activity_at;
      default:
        return UNKNOWN;
    }
  };
}

/** Reads a condition's field of a stored contact (Chatwoot's columns and attribute hashes). */
export function contactReader(r: ContactRecord) {
  return (c: Condition): unknown => {
    if (c.custom) return r.custom_attributes?.[c.key];
    switch (c.key) {
      case 'country_code':
      case 'city':
      case 'company':
        return r.additional_attributes?.[c.key];
      default:
        return (r as unknown as Record<string, unknown>)[c.key];
    }
  };
}

/** `POST /contacts/filter`: `{meta: {count, current_page}, payload: [contact]}`, 15 a page, listed contacts only. */
export async function filterContacts(accountId: number, body: Body, query: Record<string, string | undefined>) {
  const page = pageNumber(body.page);
  const ids = await matchingContactIds(accountId, await conditionsOf(accountId, 'contacts', body));
  return {
    meta: { count: ids.length, current_page: body.page ?? 1 },
    payload: await contactsJson(accountId, ids.slice((page - 1) * CONTACTS_PAGE, page * CONTACTS_PAGE), includeInboxes(query)),
  };
}

/** The conditions of a contact filter body, checked (422 as `POST /contacts/filter` answers). */
export const contactConditions = (accountId: number, body: Body) => conditionsOf(accountId, 'contacts', body);

/** Every listed contact the conditions match, in the listing's order (the contacts export reads them all). */
export async function matchingContactIds(accountId: number, conditions: Condition[]): Promise<number[]> {
  const lookups = exactLookups(conditions, EXACT_KEYS);
  if (lookups) {
    // Every way to match pins an email or phone number (EvolutionAPI's lookup): their holders (AP45) are
    // the only candidates, read in full and judged; the listing is not read.
    const holders = await Promise.all(
      lookups.map((l) => contactsRepo.findContactIdBy(accountId, l.key as contactsRepo.UniqueField, l.value)),
    );
    const candidates = [...new Set(holders.filter((id): id is number => id !== undefined))];
    const found = (await contactsRepo.getContacts(accountId, candidates)).filter(
      (r): r is ContactRecord => !!r && contactsRepo.isListed(r) && evaluate(conditions, contactReader(r)) === true,
    );
    return found.map((r) => r.id).sort((a, b) => a - b);
  }
  const rows = await contactsRepo.listContactListings(accountId);
  const matched = new Set<number>();
  const open: number[] = [];
  for (const row of rows) {
    const verdict = evaluate(conditions, listingReader(row));
    if (verdict) matched.add(row.id);
    else if (verdict === undefined) open.push(row.id);
  }
  if (open.length) {
    for (const r of await contactsRepo.getContacts(accountId, open)) {
      if (r && evaluate(conditions, contactReader(r))) matched.add(r.id);
    }
  }
  return rows.filter((r) => matched.has(r.id)).map((r) => r.id);
}

// ── conversations ───────────────────────────────────────────────────────────────────────────────

/** What an activity-index row holds of a conversation; attribute hashes are UNKNOWN there. */
function rowReader(row: ConversationRow) {
  return (c: Condition): unknown => {
    if (c.custom) return UNKNOWN;
    switch (c.key) {
      case 'status':
      case 'assignee_id':
      case 'inbox_id':
      case 'team_id':
      case 'priority':
      case 'labels':
      case 'created_at':
      case 'last_activity_at':
        return row[c.key];
      case 'display_id':
        return row.id;
      default:
        // campaign_id among them: a campaign's conversation keeps it in its additional attributes.
        return UNKNOWN;
    }
  };
}

/** What a counter holds of its conversations (their combination); everything else is UNKNOWN there. */
function combinationReader(c: Combination) {
  return (k: Condition): unknown => {
    if (k.custom) return UNKNOWN;
    switch (k.key) {
      case 'status':
      case 'assignee_id':
      case 'inbox_id':
      case 'team_id':
        return c[k.key];
      default:
        return UNKNOWN;
    }
  };
}

/** Reads a condition's field of a stored conversation. */
export function conversationReader(r: ConversationRecord) {
  const slim = rowReader(r);
  return (c: Condition): unknown => {
    if (c.custom) return r.custom_attributes?.[c.key];
    const v = slim(c);
    return v === UNKNOWN ? r.additional_attributes?.[c.key] : v;
  };
}

/**
 * `POST /conversations/filter`: `{meta: {mine_count, unassigned_count, all_count}, payload: [conversation]}`,
 * newest activity first, 25 a page; agents see the conversations of their inboxes only.
 */
export async function filterConversations(account: AccountRecord, actor: Actor, body: Body) {
  const scope = await withRefsCache(() => inboxScope(account.id, actor));
  // Conditions on the inbox need the inbox counters; the others are settled by the account counters when complete.
  const onInbox = Array.isArray(body.payload) && body.payload.some((p) => (p as Body | null)?.attribute_key === 'inbox_id');
  const [conditions, counters] = await Promise.all([
    conditionsOf(account.id, 'conversations', body),
    countersFor(account, scope, onInbox ? 'rows' : 'page'),
  ]);
  const me = actor.type === 'user' ? actor.user.id : undefined;
  const page = pageNumber(body.page);
  const visible = (inbox: number | undefined) => scope === 'all' || (inbox !== undefined && scope.has(inbox));
  const live = counters.counters.filter((c) => c.count > 0 && visible(c.inbox_id));
  const verdicts = live.map((c) => evaluate(conditions, combinationReader(c)));
  if (verdicts.every((v) => v !== undefined)) {
    const wanted = (c: Combination) => visible(c.inbox_id) && evaluate(conditions, combinationReader(c)) === true;
    const counted = live.filter((_, i) => verdicts[i]);
    const sum = (keep: (c: Combination) => boolean) => counted.filter(keep).reduce((n, c) => n + c.count, 0);
    const meta = {
      mine_count: sum((c) => c.assignee_id !== null && c.assignee_id === me),
      unassigned_count: sum((c) => c.assignee_id === null),
      all_count: sum(() => true),
    };
    const { records, contacts } = await pageRecords(account.id, await pageByActivity(account.id, counters, wanted, page));
    return { meta, payload: await conversationsJson(account.id, actor, records, contacts) };
  }
  // The conversations the caller sees in the (inbox, status) partitions (and teams) the conditions can match, from those
  // partitions or the account index, whichever costs less (an account counter stands for every inbox).
  const canMatch = (c: { inbox_id?: number; status: string; team_id: number | null }) =>
    visible(c.inbox_id) &&
    evaluate(conditions, (k) =>
      k.custom
        ? UNKNOWN
        : k.key === 'inbox_id'
          ? (c.inbox_id ?? UNKNOWN)
          : k.key === 'status'
            ? c.status
            : k.key === 'team_id'
              ? c.team_id
              : UNKNOWN,
    ) !== false;
  const rows = await scopeConversations(account.id, counters, canMatch);
  // The index holds whole conversations: every condition settles on the row (only a slim row, read while an
  // upgrade builds gsi3w, can leave one open, and is then read by key).
  const matched: ConversationRow[] = [];
  const open: ConversationRow[] = [];
  const read = new Map<number, ConversationRecord>();
  for (const row of rows) {
    const verdict = evaluate(conditions, isWhole(row) ? conversationReader(row) : rowReader(row));
    if (verdict) {
      matched.push(row);
      if (isWhole(row)) read.set(row.id, row);
    } else if (verdict === undefined) open.push(row);
  }
  if (open.length) {
    for (const r of await getConversations(
      account.id,
      open.map((o) => o.id),
    )) {
      if (r && evaluate(conditions, conversationReader(r))) {
        read.set(r.id, r);
        matched.push(r);
      }
    }
  }
  matched.sort(byActivityDesc);
  const meta = {
    mine_count: matched.filter((c) => c.assignee_id !== null && c.assignee_id === me).length,
    unassigned_count: matched.filter((c) => c.assignee_id === null).length,
    all_count: matched.length,
  };
  const pageRows = matched.slice((page - 1) * CONVERSATIONS_PAGE, page * CONVERSATIONS_PAGE);
  const missing = pageRows.filter((r) => !read.has(r.id)).map((r) => r.id);
  for (const r of await getConversations(account.id, missing)) if (r) read.set(r.id, r);
  const records = pageRows.map((r) => read.get(r.id)).filter((r): r is ConversationRecord => !!r);
  return { meta, payload: await conversationsJson(account.id, actor, records) };
}
