// Every key string of the table is built here; nothing else writes '#'.
// Layout (pk / sk, and index keys where an item has them):
//   token            TOKEN#<sha256>            TOKEN
//   platform app     PAPP#<id>                 PAPP
//   permissible      PAPP#<appId>              PERM#<kind>#<id>         (kind: ACCOUNT, USER, BOT)
//   account          ACCT#<id>                 ACCOUNT
//   account user     ACCT#<accountId>          AU#<userId>              gsi1: USER#<userId> / AU#<accountId>
//   user             USER#<id>                 USER
//   agent bot        BOT#<id>                  BOT                      gsi1: BOTS#<accountId|SYSTEM> / BOT#<id>
//   bot access       ACCT#<accountId>          BOTACCESS#<botId>
//   unique sentinel  UNIQ#<scope>#<value>      UNIQ
//   contact          CONTACT#<accountId>#<id>  CONTACT
//   contact inbox    CONTACT#<accountId>#<id>  CI#<inboxId>#<sourceId>  (in the contact's partition: one Query reads both)
//   contact listing  CONTACTS#<accountId>      <contactId>              (compact projection of listed contacts)
//   contact note     CNOTES#<accountId>#<contactId>  NOTE#<id>
//   company          COMPANIES#<accountId>     COMPANY#<id>
//   company domain   UNIQ#COMPANY#<accountId>#<lower-cased domain>  UNIQ  (owner_id: the company new contacts on it link to)
//   company contact  COMPANYCONTACTS#<accountId>#<companyId>  <contactId>  (a contact's link: unlinked when the company goes)
// contact          (above)                                            gsi2 (unlisted contacts only): ACONTACTS#<accountId> / <contactId>
// (the purge's enumeration)
// contact inbox    (above)                                            gsi2: ICONTACTS#<accountId>#<inboxId> / <contactId>#<sourceId>   (an
// inbox's contact inboxes)
//   contacts import  IMPORTS#<acctId>  IMPORT#<id> | FAILED#<id>#<chunk start> | ROW#<id>#<row>   (an import's job, refused rows, row marks)
// purge job        PURGE#ACCOUNT#<acctId> | PURGE#INBOX#<acctId>#<inboxId>   PURGE   gsi1: PURGES / <pk>   (a deleted account's or inbox's
// data still to remove)
//   contact unique   UNIQ#CONTACT#<field>#<accountId>#<value>  UNIQ      (field: email, phone_number, identifier; owner_id)
//   source id unique UNIQ#SOURCE#<inboxId>#<sourceId>          UNIQ      (account_id, contact_id of the contact inbox)
//   id sequence      SEQ#<name>                SEQ
//   rate window      LIMIT#<scope>             W#<windowStart>          (requests counted across containers; expires after its window)
//   maintenance      MAINT#<name>              MAINT                    (a scan's checkpoint: the re-seal)
//   rule run         RULERUN#<eventId>         RULE#<ruleId>            (expires after a week)
//   signal           <pk of what it concerns>  SIGNAL#<time-ordered id>   (expires after a day)
// conversation     CONV#<acctId>#<displayId>   CONV                   gsi3: CONVS#<acctId>#INBOX#<inboxId>#<status> /
// <lastActivity>#<displayId>; gsi4 (whole item): ACONVS#<acctId>#<status>#<displayId mod LIST_SHARDS> (no team) or
// ACONVS#<acctId>#<status>#T<teamId> / <lastActivity>#<displayId>
//   message          CONV#<acctId>#<displayId>   MSG#<messageId>
// search tail      STAIL#<acctId>                <createdAt>#<messageId>   (slim copy of an incoming/outgoing message: c, i, x;
// shared/search)
//   search head      SIDX#<acctId>                 HEAD                 (the `q` index: watermark, segment directories; shared/search)
//   search segment   SIDX#<acctId>#<segmentId>     B#<bucket> | S#<hex of trigram>#<part> | D#<doc chunk>
//   search pack      SIDX#<acctId>#<packId>        P                    (tail messages packed, deflated; shared/codec/search-pack.ts)
//   search grams     SGRAM#<acctId>#<parts>#<part> <segmentId>          (a large segment's bucket postings whose trigram hashes to
//                                                                         <part> of <parts>: one Query reads every segment's; docs/search.md)
// conv. state      CSTATE#<acctId>               B#<displayId / 64>   (attribute: displayId mod 64 as a base64url digit, older blocks
// c<displayId>: "<assignee>|<team>" or "x" when deleted)
//   conv. counter    CNT#<acctId>                  <inbox>#<team>#<status>#<assignee>   (0 = none)
//   account counter  CNTA#<acctId>                 <team>#<status>#<assignee>           (the same, summed over the inboxes)
//   conv. label      CLABEL#<acctId>#<label>       CONV#<displayId>
//   contact conv.    CCONV#<acctId>#<contactId>    CONV#<displayId>
//   display id seq.  SEQ#CONV#<acctId>             SEQ
//   label            LABELS#<acctId>               LABEL#<id>
//   label title uniq UNIQ#LABEL#<acctId>#<lower-cased title>          UNIQ      (owner_id)
//   custom filter    CFILTER#<acctId>#<userId>     CF#<id>                gsi1: CFILTERS#<acctId>#<userId>#<filterType> / CF#<id>
//   filter count     CFILTER#<acctId>#<userId>     COUNT                  (the user's filter count, for the 1000 limit)
//   automation rule  RULES#<acctId>                RULE#<id>              gsi1 (active rules only): RULES#<acctId>#<eventName> / RULE#<id>
//   webhook          WEBHOOKS#<acctId>             WH#<id>
//   webhook url uniq UNIQ#WEBHOOK#<acctId>#<sha256 of normalized url>  UNIQ      (owner_id)
//   delivery attempt WHDELIVERIES#<acctId>#<webhookId>#L  <at ms>#<deliveryId>#<attempt>  (one per attempt; expires)
//   (before)         WHDELIVERIES#<acctId>#<webhookId>[#R]  COUNT, ATTEMPT#<slot>  (the counter and ring, expiring)
//   inbox            INBOXES#<acctId>              INBOX#<inboxId>
//   inbox member     INBOXES#<acctId>              IMEMBER#<inboxId>#<userId>   gsi1: UINBOXES#<acctId>#<userId> / INBOX#<inboxId>
//   inbox summary    INBOXES#<acctId>              ISLIM#<inboxId>   (id, name, channel type, avatar, bot: AP28; `ISLIM#` alone marks the set complete)
//   inbox identifier UNIQ#INBOX_IDENTIFIER#<identifier>            UNIQ      (account_id, inbox_id: public API lookup)
//   website token    UNIQ#WEBSITE_TOKEN#<token>                    UNIQ      (account_id, inbox_id)
//   channel unique   UNIQ#CHANNEL#<kind>#<value>                   UNIQ      (kind: EMAIL, EMAIL_FORWARD, LINE, TELEGRAM (sha256 of token),
// WHATSAPP, SMS, TWILIO (messaging service sid or phone number))
// mail thread      CONV#<acctId>#<displayId>   THREAD#UUID              gsi1: MAILUUID#<conversation uuid> / THREAD   (a conversation a mail
// came into or went out of: reply+<uuid> and our Message-IDs name it)
// mail reference   CONV#<acctId>#<displayId>   THREAD#REF#<sha256 of a Message-ID>   gsi1: MAILREF#<inboxId>#<sha256> / THREAD   (the
// In-Reply-To of the conversation's first mail: another reply to the same mail joins it)
//   imap state       IMAP#<acctId>#<inboxId>       STATE                (UIDVALIDITY and the last UID imported; the poll's lease)
// inbox            (above)                                            gsi2 (email inboxes with IMAP on only): IMAPINBOXES / <acctId>#<inboxId>
//   provider message UNIQ#PMSG#<inboxId>#<provider message id>     UNIQ      (account_id, conversation_id, message_id: channel dedup and
//                                                                            status lookup)
//   team             TEAMS#<acctId>                TEAM#<teamId>
//   team name uniq   UNIQ#TEAM#<acctId>#<lower-cased name>         UNIQ      (owner_id)
//   team member      TEAMS#<acctId>                TMEMBER#<teamId>#<userId>    gsi1: UTEAMS#<acctId>#<userId> / TEAM#<teamId>
// contact inbox    (above)                                                gsi1: PUBSUB#<pubsub_token> / CI   (the socket's lookup, only for
// a token naming no contact inbox)
//   cable connection CABLE#<connectionId>          CONN                   gsi1: CABLES / <connected at, ms>#<connectionId>   (expires)
//   cable subscr.    CABLESUBS#<acctId>            SUB#<connectionId>#<identifier hash>                    (expires)
//   presence         PRESENCE#<acctId>             SEEN#USER#<id> | SEEN#CONTACT#<id>                              (expires)
//   session          SESSION#<sha256 of access-token>  SESSION        gsi1: USESSIONS#<userId> / CLIENT#<client>   (expires)
// throttle window  THROTTLE#<scope>#<sha256>  W#<window start>        (attempts taken in a window: sign-in, reset, transcript, socket
// frames; expires)
// password reset   RESET#<userId>            RESET                  (the user's one live reset link, by its hash; a used one stays as a
// tombstone; expires)
//   socket count     CABLEADDR#<sha256 of address>  COUNT             (open sockets of a client address; expires when quiet)
//   macro            MACROS#<acctId>               MACRO#<id>
//   audit entry      AUDIT#<acctId>                <at, s>#<stream sequence number>   (one change of an audited record; expires)
//   audit count      AUDITN#<acctId>               <expiry day end, s>    (the account's entries that expire that day; expires with them)
//   dashboard app    DAPPS#<acctId>                DAPP#<id>
//   notification     NOTIFS#<acctId>#<userId>      N#<id>                 gsi1 (unread only): UNREADN#<acctId>#<userId> / N#<id>
// notification     (above)                                            gsi2 (once snoozed): SNOOZEDN#<acctId>#<userId> / N#<id>   (a snooze
// past its time counts as none)
//   notif. counter   NOTIFS#<acctId>#<userId>      COUNT                  (total and unread)
//   notif. settings  NOTIFS#<acctId>#<userId>      SETTINGS
//   notif. claim     NOTIFRUN#<eventId>            USER#<userId>          (a pipeline event notified this user; expires)
//   push subscription PUSHSUBS#<userId>            SUB#<sha256 of the subscription's identifier>
//   one-time token   OTT#<purpose>#<sha256 of token>  OTT                  (SSO link; expires)
//   mail request     MAIL#<random id>              MAIL                   (outbox: the pipeline mails it; expires)
//   campaign         CAMPAIGNS#<acctId>            CAMPAIGN#<display id>
//   campaign seq.    SEQ#CAMPAIGN#<acctId>         SEQ
//   attribute def.   CATTRS#<acctId>               CATTR#<id>
//   attr. key uniq   UNIQ#CATTR#<acctId>#<model>#<key>             UNIQ      (owner_id)
//   canned response  CANNED#<acctId>               CANNED#<id>
//   short code uniq  UNIQ#CANNED#<acctId>#<short code>             UNIQ      (owner_id; case-sensitive, as Chatwoot)
//   integration hook HOOKS#<acctId>                HOOK#<id>
//   one-hook app     UNIQ#HOOKAPP#<acctId>#<appId>                 UNIQ      (owner_id; apps without multiple hooks)
//   participant      CONV#<acctId>#<displayId>   PART#<userId>          (in the conversation's partition: goes with it)
// report day       RPT#<acctId>#<series>       D#<yyyymmdd>           (series: A | G#<userId> | I#<inboxId> | T#<teamId> | L#<label> |
// C#<channel type>)
// report hour      RPT#<acctId>#<series>       H#<hh>#<yyyymmdd>      (four quarter-hour counters; hour first, so one Query reads an hour
// of day across days; accounts without `report_blocks`)
// report block     RPT#<acctId>#<series>       B#<group>#<0-3>#<yyyymmdd>   (a field group's 24 quarter-hour counters of six UTC hours;
// accounts with `report_blocks`: docs/reports.md)
// report grouped   RPT#<acctId>#M#<family>     D#<group>#<yyyymmdd> | B#<group>#<0-3>#<yyyymmdd>   (every member's figures of a
// family of series — agents, inboxes, teams, labels, channel types — per day or six-hour block; accounts with `report_groups`)
// report fact      RPTF#<acctId>[#<shard>]     C#<displayId>#<source event id> | X#<source event id>   (what one pipeline event added to
// the aggregates; the rebuild's input; a conversation's facts sort together)
// reporting event  RPTF#<acctId>               C#<displayId>#<source event id>#E<n>   (E0 is its event's fact; those written before the
// listing items have gsi1: REVT#<acctId> / <createdAt>#<id>)
//   report conv.     RPTC#<acctId>               CONV#<displayId>       (bot handoff and last resolution times of a conversation)
// live unattended  RPTL#<acctId>               U#<assigneeId|0>#<displayId>   (an open conversation waiting for a reply, under its
// assignee)
// report log       RPTP#<acctId>               L#<ms>#<random>        (a dispatcher batch's counted facts merged, and its unattended
// changes: pending until folded into the aggregates)
//   report fold    RPTP#<acctId>               F                      (the account's fold: watermark, fold in progress)
// reporting events listing  RPTE#<acctId>   <yyyymmddhh>#<fold end>#<n>   (the reporting events a fold folded, created in that UTC hour:
// the account's listing; append-only, pruned only by a later fold applying a conversation's deletion)
//   portal           PORTALS#<acctId>              PORTAL#<id>
//   portal slug uniq UNIQ#PORTAL#<slug>                            UNIQ      (account_id, owner_id: the public pages' lookup)
//   portal domain    UNIQ#PORTALDOMAIN#<lower-cased host>          UNIQ      (account_id, owner_id: a custom domain's portal)
//   hc category      HC#<acctId>#<portalId>        CAT#<id>               (a portal's categories and articles: one partition)
//   hc article       HC#<acctId>#<portalId>        ART#<id>
//   category slug    UNIQ#HCCAT#<portalId>#<locale>#<slug>          UNIQ      (owner_id)
//   article slug     UNIQ#HCART#<portalId>#<slug>                   UNIQ      (owner_id: the public article page's lookup)
// csat survey      CONV#<acctId>#<displayId>   CSAT                   gsi1: CSATUUID#<conversation uuid> / CSAT   (the conversation's one
// survey: its message, and the answer the reports counted)
//   csat response  CSATR#<acctId>              <first answered at>#<messageId>   (an answered survey, as the responses list reads it)
//   sla policy     SLAS#<acctId>               SLA#<id>
// applied sla      CONV#<acctId>#<displayId>   ASLA                   gsi1: ASLAS#<acctId> / <createdAt>#<displayId>   (the conversation's
// applied SLA and its misses; the account's, by creation, for applied_slas)

export type Key = { pk: string; sk: string };

/** Throttles' scopes (sign-in's EMAIL and IP keep their first names). */
export type ThrottleScope =
  | 'EMAIL'
  | 'IP'
  | 'RESET_EMAIL'
  | 'RESET_IP'
  | 'TRANSCRIPT_CONV'
  | 'TRANSCRIPT_VISITOR'
  | 'TRANSCRIPT_IP'
  | 'TRANSCRIPT_TO'
  | 'TRANSCRIPT_ACCOUNT'
  | 'CABLE_FRAMES';

/**
 * DynamoDB's limits on key attributes, table and index keys alike, in UTF-8 bytes: a partition key value
 * of at most 2048, a sort key value of at most 1024. Keys carry user input (emails, identifiers, source
 * ids, titles), which the schemas bound; `oversizedKeyValue` is the last guard, before any call.
 */
export const KEY_VALUE_LIMITS = { partition: 2048, sort: 1024 } as const;

/** The limit of a key attribute by its name (`pk`, `gsi1sk`, …), or undefined for other attributes. */
const limitOf = (attribute: string) =>
  /^(gsi\d+)?pk$/.test(attribute) ? KEY_VALUE_LIMITS.partition : /^(gsi\d+)?sk$/.test(attribute) ? KEY_VALUE_LIMITS.sort : undefined;

/** The first key attribute of `item` (a key or a whole item) whose value is over its limit. */
export function oversizedKeyValue(item: Record<string, unknown> | undefined): string | undefined {
  for (const [name, raw] of Object.entries(item ?? {})) {
    const limit = limitOf(name);
    // Plain, or already marshalled (`{S: "…"}`).
    const value = typeof raw === 'string' ? raw : typeof (raw as { S?: unknown })?.S === 'string' ? (raw as { S: string }).S : undefined;
    if (limit !== undefined && value !== undefined && value.length > limit / 4 && Buffer.byteLength(value) > limit) return name;
  }
  return undefined;
}

const SEP = '#';
const join = (...parts: (string | number)[]) => parts.join(SEP);
/**
 * Shards of the account-wide activity index (gsi4): a chat message moves its conversation's copy (2 write units
 * on one index partition), so one account's messages spread over this many partitions (500 messages a second
 * make 500 write units a second on each, half the per-partition limit); a whole-account list page reads one
 * Query per shard.
 */
export const LIST_SHARDS = 2;

/**
 * Shards of an account's report facts (accounts made since they exist): every counted event writes one, so one
 * partition would take ~3 write units a message (1,500 WCU/s at 500 messages a second, docs/cost.md#partition-heat).
 */
export const REPORT_FACT_SHARDS = 4;
const factShard = (conversationId: number | null, factId: string) =>
  conversationId != null
    ? conversationId % REPORT_FACT_SHARDS
    : [...factId].reduce((h, ch) => (h * 31 + ch.charCodeAt(0)) >>> 0, 0) % REPORT_FACT_SHARDS;

/** Zero-padded so that numeric ids sort in sort keys. */
export const pad = (n: number, width = 12) => String(n).padStart(width, '0');

// Each builder is its own export, so that a bundle carries only the keys its code builds (importers use
// `import * as keys from '#shared/db/keys.ts'`, which bundlers tree-shake).
export const token = (hash: string): Key => ({ pk: join('TOKEN', hash), sk: 'TOKEN' });

export const platformApp = (id: number): Key => ({ pk: join('PAPP', id), sk: 'PAPP' });
export const permissible = (appId: number, kind: PermissibleKind, id: number): Key => ({
  pk: join('PAPP', appId),
  sk: join('PERM', kind, id),
});
export const permissiblePrefix = (appId: number, kind: PermissibleKind) => ({ pk: join('PAPP', appId), skPrefix: join('PERM', kind, '') });
export const permissibleIdFromSk = (sk: string): number => Number(sk.split(SEP)[2]);

export const account = (id: number): Key => ({ pk: join('ACCT', id), sk: 'ACCOUNT' });

export const accountUser = (accountId: number, userId: number): Key => ({ pk: join('ACCT', accountId), sk: join('AU', pad(userId)) });
export const accountUserIndex = (accountId: number, userId: number) => ({
  gsi1pk: join('USER', userId),
  gsi1sk: join('AU', pad(accountId)),
});
export const accountUsersPrefix = (accountId: number) => ({ pk: join('ACCT', accountId), skPrefix: join('AU', '') });
export const userAccountsPrefix = (userId: number) => ({ gsi1pk: join('USER', userId), skPrefix: join('AU', '') });

export const user = (id: number): Key => ({ pk: join('USER', id), sk: 'USER' });

export const agentBot = (id: number): Key => ({ pk: join('BOT', id), sk: 'BOT' });
export const agentBotIndex = (id: number, accountId: number | null) => ({
  gsi1pk: join('BOTS', accountId ?? 'SYSTEM'),
  gsi1sk: join('BOT', pad(id)),
});
export const agentBotsOf = (accountId: number | null) => ({ gsi1pk: join('BOTS', accountId ?? 'SYSTEM'), skPrefix: join('BOT', '') });

/** An agent bot's right to act in an account it does not belong to (written when attached to an inbox). */
export const agentBotAccess = (accountId: number, botId: number): Key => ({ pk: join('ACCT', accountId), sk: join('BOTACCESS', botId) });

/**
 * A signal: an event that changes no record (typing, widget opened). Written in the partition of what
 * it concerns (a conversation's pk), so it keeps its place among that partition's stream records.
 */
export const signal = (partitionPk: string, id: string): Key => ({ pk: partitionPk, sk: join('SIGNAL', id) });

/** Marks that an automation rule ran for an event (idempotent dispatch); expires after a week. */
export const ruleRun = (eventId: string, ruleId: number): Key => ({ pk: join('RULERUN', eventId), sk: join('RULE', ruleId) });

// ── account interface keys: each area adds its own block below, with its layout in the header ──

// ── contacts (contacts area) ──
export const contact = (accountId: number, id: number): Key => ({ pk: join('CONTACT', accountId, id), sk: 'CONTACT' });
/** The contact item and its contact inboxes. */
export const contactPartition = (accountId: number, id: number) => join('CONTACT', accountId, id);
export const contactInbox = (accountId: number, contactId: number, inboxId: number, sourceId: string): Key => ({
  pk: join('CONTACT', accountId, contactId),
  sk: join('CI', pad(inboxId), sourceId),
});
export const contactInboxesPrefix = (accountId: number, contactId: number) => ({
  pk: join('CONTACT', accountId, contactId),
  skPrefix: join('CI', ''),
});
/** A contact's contact inboxes in one inbox (AP263: where a located pubsub token points). */
export const contactInboxesInInbox = (accountId: number, contactId: number, inboxId: number) => ({
  pk: join('CONTACT', accountId, contactId),
  skPrefix: join('CI', pad(inboxId), ''),
});
// contact notes and companies (issue 32)
export const contactNote = (accountId: number, contactId: number, id: number): Key => ({
  pk: join('CNOTES', accountId, contactId),
  sk: join('NOTE', pad(id)),
});
export const contactNotesOf = (accountId: number, contactId: number) => ({
  pk: join('CNOTES', accountId, contactId),
  skPrefix: join('NOTE', ''),
});
export const company = (accountId: number, id: number): Key => ({ pk: join('COMPANIES', accountId), sk: join('COMPANY', pad(id)) });
export const companiesOf = (accountId: number) => ({ pk: join('COMPANIES', accountId), skPrefix: join('COMPANY', '') });
export const companyContact = (accountId: number, companyId: number, contactId: number): Key => ({
  pk: join('COMPANYCONTACTS', accountId, companyId),
  sk: pad(contactId),
});
export const companyContactsPartition = (accountId: number, companyId: number) => join('COMPANYCONTACTS', accountId, companyId);
export const companyDomainUnique = (accountId: number, domain: string): Key => unique(join('COMPANY', accountId), domain);
export const contactListing = (accountId: number, id: number): Key => ({ pk: join('CONTACTS', accountId), sk: pad(id) });
export const contactListingPartition = (accountId: number) => join('CONTACTS', accountId);
export const contactIdFromListingSk = (sk: string): number => Number(sk);
export const contactUnique = (accountId: number, field: 'email' | 'phone_number' | 'identifier', value: string): Key =>
  unique(join('CONTACT', field, accountId), value);
export const sourceIdUnique = (inboxId: number, sourceId: string): Key => unique(join('SOURCE', inboxId), sourceId);
/** Sparse: only unlisted (anonymous) contacts carry it; listed ones are enumerated by their listing (AP260). */
export const unlistedContactIndex = (accountId: number, id: number) => ({ gsi2pk: join('ACONTACTS', accountId), gsi2sk: pad(id) });
export const unlistedContactsOf = (accountId: number) => ({ gsi2pk: join('ACONTACTS', accountId), skPrefix: '' });
/** An inbox's contact inboxes (AP261). */
export const inboxContactIndex = (accountId: number, inboxId: number, contactId: number, sourceId: string) => ({
  gsi2pk: join('ICONTACTS', accountId, inboxId),
  gsi2sk: join(pad(contactId), sourceId),
});
export const contactInboxesOfInbox = (accountId: number, inboxId: number) => ({
  gsi2pk: join('ICONTACTS', accountId, inboxId),
  skPrefix: '',
});

// ── conversations + messages + counts ──
export const conversation = (accountId: number, displayId: number): Key => ({ pk: join('CONV', accountId, displayId), sk: 'CONV' });
/** The inbox activity index (gsi3w, whole copies): one partition per inbox and status, newest last (queries read backwards). */
export const conversationIndex = (c: { account_id: number; inbox_id: number; status: string; last_activity_at: number; id: number }) => ({
  gsi3pk: join('CONVS', c.account_id, 'INBOX', c.inbox_id, c.status),
  gsi3sk: join(pad(c.last_activity_at), pad(c.id)),
});
export const conversationsByInboxStatus = (accountId: number, inboxId: number, status: string) => ({
  gsi3pk: join('CONVS', accountId, 'INBOX', inboxId, status),
});
/**
 * A conversation's partition of the account-wide activity index (gsi4): its team's (`T<team>`) when it has one, so that
 * a team's list page reads one partition of only that team's conversations; else a shard by display id (LIST_SHARDS).
 */
export type AccountListPart = number | `T${number}`;
export const accountListPart = (c: { id: number; team_id?: number | null }): AccountListPart =>
  c.team_id != null ? `T${c.team_id}` : c.id % LIST_SHARDS;
/** The account-wide activity index (gsi4, whole items): one partition per account, status and team or shard (AP62). */
export const accountConversationIndex = (c: {
  account_id: number;
  status: string;
  last_activity_at: number;
  id: number;
  team_id?: number | null;
}) => ({
  gsi4pk: join('ACONVS', c.account_id, c.status, accountListPart(c)),
  gsi4sk: join(pad(c.last_activity_at), pad(c.id)),
});
export const conversationsByAccountStatus = (accountId: number, status: string, part: AccountListPart) => ({
  gsi4pk: join('ACONVS', accountId, status, part),
});
/** The lowest gsi3 sort key of a conversation active at or after this second (and, within it, with at least this display id) (AP79). */
export const activitySince = (seconds: number, displayId?: number) => join(pad(seconds), displayId === undefined ? '' : pad(displayId));
export const conversationSequence = (accountId: number) => join('CONV', accountId);
export const message = (accountId: number, displayId: number, messageId: number): Key => ({
  pk: join('CONV', accountId, displayId),
  sk: join('MSG', pad(messageId)),
});
export const messagesPrefix = (accountId: number, displayId: number) => ({
  pk: join('CONV', accountId, displayId),
  skPrefix: join('MSG', ''),
});
export const messageSk = (messageId: number) => join('MSG', pad(messageId));
/** The `q` index's tail: a slim copy of each searchable message, creation-time ordered (AP72). */
export const searchTail = (accountId: number, createdAt: number, messageId: number): Key => ({
  pk: join('STAIL', accountId),
  sk: join(pad(createdAt), pad(messageId)),
});
export const searchTailPartition = (accountId: number) => join('STAIL', accountId);
/** Sort-key bounds of tail items created at or after / before a second. */
export const searchTailFrom = (seconds: number) => join(pad(seconds), '');
export const searchHead = (accountId: number): Key => ({ pk: join('SIDX', accountId), sk: 'HEAD' });
export const searchSegment = (accountId: number, segmentId: string) => join('SIDX', accountId, segmentId);
export const searchBucket = (accountId: number, segmentId: string, bucket: number): Key => ({
  pk: join('SIDX', accountId, segmentId),
  sk: join('B', bucket),
});
export const searchSolo = (accountId: number, segmentId: string, gram: string, part: number): Key => ({
  pk: join('SIDX', accountId, segmentId),
  sk: join('S', Buffer.from(gram, 'utf8').toString('hex'), part),
});
export const searchDocs = (accountId: number, segmentId: string, chunk: number): Key => ({
  pk: join('SIDX', accountId, segmentId),
  sk: join('D', chunk),
});
export const searchDocsPrefix = join('D', '');
/**
 * A large segment's bucket postings of the trigrams hashing to `part` of `parts` (sk: the segment id), so one
 * Query reads that bucket of every such segment (docs/search.md#gram-partitions).
 */
export const searchGrams = (accountId: number, parts: number, part: number, segmentId: string): Key => ({
  pk: searchGramPartition(accountId, parts, part),
  sk: segmentId,
});
export const searchGramPartition = (accountId: number, parts: number, part: number) => join('SGRAM', accountId, parts, part);
/** A pack of the `q` index (tail messages kept together until they become a segment). */
export const searchPack = (accountId: number, packId: string): Key => ({ pk: join('SIDX', accountId, packId), sk: 'P' });
/** A block of 64 conversations' assignee and team (what `q` counts need beyond the index). */
export const conversationState = (accountId: number, displayId: number): Key => ({
  pk: join('CSTATE', accountId),
  sk: join('B', pad(Math.floor(displayId / 64), 8)),
});
export const conversationStatePartition = (accountId: number) => join('CSTATE', accountId);
export const conversationCounter = (
  accountId: number,
  c: { inbox_id: number; team_id: number | null; status: string; assignee_id: number | null },
): Key => ({
  pk: join('CNT', accountId),
  sk: join(c.inbox_id, c.team_id ?? 0, c.status, c.assignee_id ?? 0),
});
export const conversationCounters = (accountId: number) => ({ pk: join('CNT', accountId) });
/** The same counts summed over the inboxes: one item per (team, status, assignee) combination in use (AP67). */
export const accountConversationCounter = (
  accountId: number,
  c: { team_id: number | null; status: string; assignee_id: number | null },
): Key => ({
  pk: join('CNTA', accountId),
  sk: join(c.team_id ?? 0, c.status, c.assignee_id ?? 0),
});
export const accountConversationCounters = (accountId: number) => ({ pk: join('CNTA', accountId) });
export const conversationLabel = (accountId: number, label: string, displayId: number): Key => ({
  pk: join('CLABEL', accountId, label),
  sk: join('CONV', pad(displayId)),
});
export const conversationsWithLabel = (accountId: number, label: string) => ({
  pk: join('CLABEL', accountId, label),
  skPrefix: join('CONV', ''),
});
export const contactConversation = (accountId: number, contactId: number, displayId: number): Key => ({
  pk: join('CCONV', accountId, contactId),
  sk: join('CONV', pad(displayId)),
});
export const contactConversations = (accountId: number, contactId: number) => ({
  pk: join('CCONV', accountId, contactId),
  skPrefix: join('CONV', ''),
});

// ── labels, custom filters, automation rules, webhooks (account interface II) ──
export const label = (accountId: number, id: number): Key => ({ pk: join('LABELS', accountId), sk: join('LABEL', pad(id)) });
export const labelsOf = (accountId: number) => ({ pk: join('LABELS', accountId), skPrefix: join('LABEL', '') });
export const labelTitleUnique = (accountId: number, title: string): Key => unique(join('LABEL', accountId), title.toLowerCase());
export const customFilter = (accountId: number, userId: number, id: number): Key => ({
  pk: join('CFILTER', accountId, userId),
  sk: join('CF', pad(id)),
});
export const customFilterIndex = (accountId: number, userId: number, filterType: string, id: number) => ({
  gsi1pk: join('CFILTERS', accountId, userId, filterType),
  gsi1sk: join('CF', pad(id)),
});
export const customFiltersOf = (accountId: number, userId: number, filterType: string) => ({
  gsi1pk: join('CFILTERS', accountId, userId, filterType),
  skPrefix: join('CF', ''),
});
export const customFilterCount = (accountId: number, userId: number): Key => ({ pk: join('CFILTER', accountId, userId), sk: 'COUNT' });
export const automationRule = (accountId: number, id: number): Key => ({ pk: join('RULES', accountId), sk: join('RULE', pad(id)) });
/** Only active rules carry it, so the index answers "what runs on this event" without filtering. */
export const automationRuleIndex = (accountId: number, eventName: string, id: number) => ({
  gsi1pk: join('RULES', accountId, eventName),
  gsi1sk: join('RULE', pad(id)),
});
export const automationRulesOf = (accountId: number) => ({ pk: join('RULES', accountId), skPrefix: join('RULE', '') });
export const activeAutomationRulesFor = (accountId: number, eventName: string) => ({
  gsi1pk: join('RULES', accountId, eventName),
  skPrefix: join('RULE', ''),
});
export const webhook = (accountId: number, id: number): Key => ({ pk: join('WEBHOOKS', accountId), sk: join('WH', pad(id)) });
export const webhooksOf = (accountId: number) => ({ pk: join('WEBHOOKS', accountId), skPrefix: join('WH', '') });
/**
 * One delivery attempt of a webhook, keyed by its time (milliseconds), the delivery and its try (unique even
 * when two attempts share a millisecond); listed newest first (AP171).
 */
export const webhookDeliveryAttempt = (accountId: number, webhookId: number, atMs: number, deliveryId: string, attempt: number): Key => ({
  pk: join('WHDELIVERIES', accountId, webhookId, 'L'),
  sk: join(pad(atMs, 13), deliveryId, attempt),
});
export const webhookDeliveryAttempts = (accountId: number, webhookId: number) => ({ pk: join('WHDELIVERIES', accountId, webhookId, 'L') });
/** The counter and ring of 100 slots attempts were written to before (they expire within a week; the purge drains them). */
export const webhookDeliveryRingPartitions = (accountId: number, webhookId: number): string[] => [
  join('WHDELIVERIES', accountId, webhookId),
  join('WHDELIVERIES', accountId, webhookId, 'R'),
];
/** `urlHash`: hex SHA-256 of the normalized URL (a URL may be longer than a key may be). */
export const webhookUrlUnique = (accountId: number, urlHash: string): Key => unique(join('WEBHOOK', accountId), urlHash);

// ── inboxes + inbox members + teams (inboxes area) ──
export const inbox = (accountId: number, id: number): Key => ({ pk: join('INBOXES', accountId), sk: join('INBOX', pad(id)) });
export const inboxesOf = (accountId: number) => ({ pk: join('INBOXES', accountId), skPrefix: join('INBOX', '') });
/** An inbox's summary (AP28): the few fields account-wide listings need, written with every write of the inbox item. */
export const inboxSummary = (accountId: number, id: number): Key => ({ pk: join('INBOXES', accountId), sk: join('ISLIM', pad(id)) });
/** The mark that every inbox of the account has its summary (AP29); it sorts first among them, so AP28's Query reads it too. */
export const inboxSummariesComplete = (accountId: number): Key => ({ pk: join('INBOXES', accountId), sk: join('ISLIM', '') });
export const inboxSummariesOf = (accountId: number) => ({ pk: join('INBOXES', accountId), skPrefix: join('ISLIM', '') });
export const inboxMember = (accountId: number, inboxId: number, userId: number): Key => ({
  pk: join('INBOXES', accountId),
  sk: join('IMEMBER', pad(inboxId), pad(userId)),
});
export const inboxMemberIndex = (accountId: number, inboxId: number, userId: number) => ({
  gsi1pk: join('UINBOXES', accountId, userId),
  gsi1sk: join('INBOX', pad(inboxId)),
});
export const inboxMembersOf = (accountId: number, inboxId: number) => ({
  pk: join('INBOXES', accountId),
  skPrefix: join('IMEMBER', pad(inboxId), ''),
});
export const userInboxesOf = (accountId: number, userId: number) => ({
  gsi1pk: join('UINBOXES', accountId, userId),
  skPrefix: join('INBOX', ''),
});
export const inboxIdentifierUnique = (identifier: string): Key => unique('INBOX_IDENTIFIER', identifier);
export const websiteTokenUnique = (token: string): Key => unique('WEBSITE_TOKEN', token);
export const channelUnique = (
  kind: 'EMAIL' | 'EMAIL_FORWARD' | 'LINE' | 'TELEGRAM' | 'WHATSAPP' | 'SMS' | 'TWILIO' | 'FACEBOOK' | 'INSTAGRAM' | 'INSTAGRAM_LOGIN',
  value: string,
): Key => unique(join('CHANNEL', kind), value);

// ── email channel (shared/channels/email) ──
/** In the conversation's partition, so that its purge takes it along. */
export const mailThread = (accountId: number, displayId: number): Key => ({
  pk: join('CONV', accountId, displayId),
  sk: join('THREAD', 'UUID'),
});
export const mailThreadIndex = (uuid: string) => ({ gsi1pk: join('MAILUUID', uuid.toLowerCase()), gsi1sk: 'THREAD' });
/** `idHash`: hex SHA-256 of the Message-ID without brackets (ids may be longer than a key may be). */
export const mailReference = (accountId: number, displayId: number, idHash: string): Key => ({
  pk: join('CONV', accountId, displayId),
  sk: join('THREAD', 'REF', idHash),
});
export const mailReferenceIndex = (inboxId: number, idHash: string) => ({ gsi1pk: join('MAILREF', inboxId, idHash), gsi1sk: 'THREAD' });
/** The sort-key prefix of a conversation's thread items (the purge's). */
export const mailThreadPrefix = join('THREAD', '');
export const imapState = (accountId: number, inboxId: number): Key => ({ pk: join('IMAP', accountId, inboxId), sk: 'STATE' });
/** Sparse, on the inbox item: email inboxes with IMAP on (the poller's list). */
export const imapInboxIndex = (accountId: number, inboxId: number) => ({
  gsi2pk: 'IMAPINBOXES',
  gsi2sk: join(pad(accountId), pad(inboxId)),
});
export const imapInboxes = () => ({ gsi2pk: 'IMAPINBOXES' });
/**
 * A provider's message id in a channel inbox (incoming: the provider's id of what the contact sent; outgoing: the
 * id the provider gave our send): one per (inbox, id), naming the message's conversation and id, so a retried
 * webhook creates nothing twice and a status webhook finds its message in one read (shared/domain/channels).
 */
export const providerMessage = (inboxId: number, providerId: string): Key => unique(join('PMSG', inboxId), providerId);
export const team = (accountId: number, id: number): Key => ({ pk: join('TEAMS', accountId), sk: join('TEAM', pad(id)) });
export const teamsOf = (accountId: number) => ({ pk: join('TEAMS', accountId), skPrefix: join('TEAM', '') });
export const teamNameUnique = (accountId: number, name: string): Key => unique(join('TEAM', accountId), name.toLowerCase());
export const teamMember = (accountId: number, teamId: number, userId: number): Key => ({
  pk: join('TEAMS', accountId),
  sk: join('TMEMBER', pad(teamId), pad(userId)),
});
export const teamMemberIndex = (accountId: number, teamId: number, userId: number) => ({
  gsi1pk: join('UTEAMS', accountId, userId),
  gsi1sk: join('TEAM', pad(teamId)),
});
export const teamMembersOf = (accountId: number, teamId: number) => ({
  pk: join('TEAMS', accountId),
  skPrefix: join('TMEMBER', pad(teamId), ''),
});
export const userTeamsOf = (accountId: number, userId: number) => ({
  gsi1pk: join('UTEAMS', accountId, userId),
  skPrefix: join('TEAM', ''),
});
// ── custom attribute definitions, canned responses, integration hooks (integrations area) ──
export const attributeDefinition = (accountId: number, id: number): Key => ({ pk: join('CATTRS', accountId), sk: join('CATTR', pad(id)) });
export const attributeDefinitionsOf = (accountId: number) => ({ pk: join('CATTRS', accountId), skPrefix: join('CATTR', '') });
export const attributeKeyUnique = (accountId: number, model: string, key: string): Key => unique(join('CATTR', accountId, model), key);
export const cannedResponse = (accountId: number, id: number): Key => ({ pk: join('CANNED', accountId), sk: join('CANNED', pad(id)) });
export const cannedResponsesOf = (accountId: number) => ({ pk: join('CANNED', accountId), skPrefix: join('CANNED', '') });
export const shortCodeUnique = (accountId: number, shortCode: string): Key => unique(join('CANNED', accountId), shortCode);
export const integrationHook = (accountId: number, id: number): Key => ({ pk: join('HOOKS', accountId), sk: join('HOOK', pad(id)) });
export const conversationParticipant = (accountId: number, displayId: number, userId: number): Key => ({
  pk: join('CONV', accountId, displayId),
  sk: join('PART', pad(userId)),
});
export const conversationParticipants = (accountId: number, displayId: number) => ({
  pk: join('CONV', accountId, displayId),
  skPrefix: join('PART', ''),
});
export const integrationHookAppUnique = (accountId: number, appId: string): Key => unique(join('HOOKAPP', accountId), appId);
export const integrationHooksOf = (accountId: number) => ({ pk: join('HOOKS', accountId), skPrefix: join('HOOK', '') });

/** The id in the last segment of a sort key (members, inbox and team ids). */
export const lastIdOf = (sk: string): number => Number(sk.slice(sk.lastIndexOf(SEP) + 1));

// ── realtime: socket connections, their subscriptions, presence ──
export const contactInboxPubsubIndex = (pubsubToken: string) => ({ gsi1pk: join('PUBSUB', pubsubToken), gsi1sk: 'CI' });
export const contactInboxByPubsub = (pubsubToken: string) => ({ gsi1pk: join('PUBSUB', pubsubToken), skPrefix: 'CI' });
export const cableConnection = (connectionId: string): Key => ({ pk: join('CABLE', connectionId), sk: 'CONN' });
export const cableAddressCount = (addressHash: string): Key => ({ pk: join('CABLEADDR', addressHash), sk: 'COUNT' });
/** Newest last, so the pinger picks up connections made since its last look with one small Query. */
export const cableConnectionIndex = (connectedAtMs: number, connectionId: string) => ({
  gsi1pk: 'CABLES',
  gsi1sk: join(pad(connectedAtMs, 15), connectionId),
});
export const cableConnectionsAfter = (connectedAtMs: number) => ({ gsi1pk: 'CABLES', after: join(pad(connectedAtMs, 15), '~') });
export const cableSubscription = (accountId: number, connectionId: string, identifierHash: string): Key => ({
  pk: join('CABLESUBS', accountId),
  sk: join('SUB', connectionId, identifierHash),
});
export const cableSubscriptionsOf = (accountId: number) => ({ pk: join('CABLESUBS', accountId), skPrefix: join('SUB', '') });
export const presence = (accountId: number, kind: 'USER' | 'CONTACT', id: number): Key => ({
  pk: join('PRESENCE', accountId),
  sk: join('SEEN', kind, pad(id)),
});
export const presenceOf = (accountId: number) => ({ pk: join('PRESENCE', accountId), skPrefix: join('SEEN', '') });

// ── sessions (devise_token_auth sign-in) ──
export const session = (tokenHash: string): Key => ({ pk: join('SESSION', tokenHash), sk: 'SESSION' });
export const sessionIndex = (userId: number, client: string) => ({ gsi1pk: join('USESSIONS', userId), gsi1sk: join('CLIENT', client) });
export const sessionsOf = (userId: number) => ({ gsi1pk: join('USESSIONS', userId), skPrefix: join('CLIENT', '') });
/** One throttle's window for one value (an email, an address, a conversation…), by the value's SHA-256. */
export const throttleWindow = (scope: ThrottleScope, valueHash: string, windowStart: number): Key => ({
  pk: join('THROTTLE', scope, valueHash),
  sk: join('W', windowStart),
});
export const passwordReset = (userId: number): Key => ({ pk: join('RESET', userId), sk: 'RESET' });
/** A scope's shared request count in one window (`ACCOUNT:<id>`, `TOKEN:<sha256>`, …; no '#'). */
export const rateWindow = (scope: string, windowStart: number): Key => ({ pk: join('LIMIT', scope), sk: join('W', windowStart) });
export const oneTimeToken = (purpose: 'SSO', tokenHash: string): Key => ({ pk: join('OTT', purpose, tokenHash), sk: 'OTT' });

// ── campaigns ──
export const campaign = (accountId: number, displayId: number): Key => ({
  pk: join('CAMPAIGNS', accountId),
  sk: join('CAMPAIGN', pad(displayId)),
});
export const campaignsOf = (accountId: number) => ({ pk: join('CAMPAIGNS', accountId), skPrefix: join('CAMPAIGN', '') });
export const campaignSequence = (accountId: number) => join('CAMPAIGN', accountId);

// ── contacts imports (shared/domain/contacts/import.ts) ──
/** An account's imports share one partition: one events-queue group, so they run one after another. */
export const contactImportsOf = (accountId: number) => join('IMPORTS', accountId);
export const contactImport = (accountId: number, id: string): Key => ({ pk: contactImportsOf(accountId), sk: join('IMPORT', id) });
/** A chunk's refused rows, written with the chunk's progress. */
export const contactImportFailures = (accountId: number, id: string, start: number): Key => ({
  pk: contactImportsOf(accountId),
  sk: join('FAILED', id, pad(start)),
});
export const contactImportFailuresOf = (accountId: number, id: string) => ({
  pk: contactImportsOf(accountId),
  skPrefix: join('FAILED', id, ''),
});
/** The mark of a row that created a contact without email, phone number or identifier (nothing else finds it again). */
export const contactImportRow = (accountId: number, id: string, row: number): Key => ({
  pk: contactImportsOf(accountId),
  sk: join('ROW', id, pad(row)),
});

// ── mail outbox ──
export const mailRequest = (id: string): Key => ({ pk: join('MAIL', id), sk: 'MAIL' });

// ── macros ──
export const macro = (accountId: number, id: number): Key => ({ pk: join('MACROS', accountId), sk: join('MACRO', pad(id)) });
export const macrosOf = (accountId: number) => ({ pk: join('MACROS', accountId), skPrefix: join('MACRO', '') });

/** One audit entry: time first, then the stream record's sequence number (the same change always lands on the same key). */
export const auditEntry = (accountId: number, at: number, sequence: string): Key => ({
  pk: join('AUDIT', accountId),
  sk: join(pad(at, 10), sequence.padStart(40, '0')),
});
export const auditLogOf = (accountId: number) => ({ pk: join('AUDIT', accountId) });
/** The count of an account's audit entries that expire at `expiresAt` (the end of a UTC day). */
export const auditCount = (accountId: number, expiresAt: number): Key => ({ pk: join('AUDITN', accountId), sk: pad(expiresAt, 10) });
export const auditCountsOf = (accountId: number) => ({ pk: join('AUDITN', accountId) });

/**
 * Whether a key is an audited record's (account, account user, inbox, webhook, team, automation rule, macro):
 * writes by key only (updates, deletes) are stamped by it (shared/db/audit-stamp.ts).
 */
const AUDITED_KEYS: [string, string][] = [
  ['ACCT', 'ACCOUNT'],
  ['ACCT', 'AU'],
  ['INBOXES', 'INBOX'],
  ['WEBHOOKS', 'WH'],
  ['TEAMS', 'TEAM'],
  ['RULES', 'RULE'],
  ['MACROS', 'MACRO'],
];
export const isAuditedKey = (key: { pk?: unknown; sk?: unknown }) => {
  if (typeof key.pk !== 'string' || typeof key.sk !== 'string') return false;
  const [pkHead, , extra] = key.pk.split(SEP);
  const [skHead] = key.sk.split(SEP);
  return extra === undefined && AUDITED_KEYS.some(([p, s]) => p === pkHead && s === skHead);
};

// ── dashboard apps ──
export const dashboardApp = (accountId: number, id: number): Key => ({ pk: join('DAPPS', accountId), sk: join('DAPP', pad(id)) });
export const dashboardAppsOf = (accountId: number) => ({ pk: join('DAPPS', accountId), skPrefix: join('DAPP', '') });

// ── notifications ──
export const notification = (accountId: number, userId: number, id: number): Key => ({
  pk: join('NOTIFS', accountId, userId),
  sk: join('N', pad(id)),
});
export const notificationsOf = (accountId: number, userId: number) => ({ pk: join('NOTIFS', accountId, userId), skPrefix: join('N', '') });
/** Sparse: only unread notifications carry it. */
export const unreadNotificationIndex = (accountId: number, userId: number, id: number) => ({
  gsi1pk: join('UNREADN', accountId, userId),
  gsi1sk: join('N', pad(id)),
});
export const unreadNotificationsOf = (accountId: number, userId: number) => ({
  gsi1pk: join('UNREADN', accountId, userId),
  skPrefix: join('N', ''),
});
/** Sparse: only notifications ever snoozed carry it; whether the snooze still holds is `snoozed_until` against now. */
export const snoozedNotificationIndex = (accountId: number, userId: number, id: number) => ({
  gsi2pk: join('SNOOZEDN', accountId, userId),
  gsi2sk: join('N', pad(id)),
});
export const snoozedNotificationsOf = (accountId: number, userId: number) => ({
  gsi2pk: join('SNOOZEDN', accountId, userId),
  skPrefix: join('N', ''),
});
export const notificationCounter = (accountId: number, userId: number): Key => ({ pk: join('NOTIFS', accountId, userId), sk: 'COUNT' });
export const notificationSettings = (accountId: number, userId: number): Key => ({ pk: join('NOTIFS', accountId, userId), sk: 'SETTINGS' });
export const notificationClaim = (eventId: string, userId: number): Key => ({ pk: join('NOTIFRUN', eventId), sk: join('USER', userId) });
export const pushSubscription = (userId: number, identifierHash: string): Key => ({
  pk: join('PUSHSUBS', userId),
  sk: join('SUB', identifierHash),
});

// ── reports ──
export const reportSeries = {
  account: () => 'A',
  agent: (userId: number) => join('G', userId),
  inbox: (inboxId: number) => join('I', inboxId),
  isInbox: (series: string) => series.startsWith(join('I', '')),
  team: (teamId: number) => join('T', teamId),
  label: (title: string) => join('L', title),
  channel: (channelType: string) => join('C', channelType),
};
export const reportSeriesPartition = (accountId: number, series: string) => join('RPT', accountId, series);
export const reportDay = (accountId: number, series: string, day: string): Key => ({
  pk: join('RPT', accountId, series),
  sk: join('D', day),
});
export const reportDaySk = (day: string) => join('D', day);
export const reportHour = (accountId: number, series: string, hour: number, day: string): Key =>
  reportPart(accountId, series, reportHourLane(hour), day);
/**
 * Hour and block items sort by their lane first (`H#<hh>` an hour of day; `B#<group>#<block>` a field group's
 * six-hour block), then the day: one Query reads a lane across days.
 */
export const reportHourLane = (hour: number) => join('H', pad(hour, 2));
export const reportBlockLane = (group: string, block: number) => join('B', group, block);
export const reportPart = (accountId: number, series: string, lane: string, day: string): Key => ({
  pk: join('RPT', accountId, series),
  sk: join(lane, day),
});
export const reportPartSk = (lane: string, day: string) => join(lane, day);
/**
 * Grouped items (accounts with `report_groups`): per family of series (`G` agents, `I` inboxes, `T` teams, `L`
 * labels, `C` channel types), member group and UTC day one item holding every member's figures (`<member>|<field>`),
 * and per six-hour block of a day one holding their quarter counters; day items sort group first, then the day
 * (one Query reads a range), block items like the series' lanes (a group's block first, then the day).
 */
export const REPORT_FAMILIES = ['G', 'I', 'T', 'L', 'C'] as const;
export type ReportFamily = (typeof REPORT_FAMILIES)[number];
/** The family and member of a series (`I#12` → I, 12); undefined for the account series. */
export function reportFamilyOf(series: string): { family: ReportFamily; member: string } | undefined {
  const family = series.slice(0, 1) as ReportFamily;
  return series[1] === '#' && REPORT_FAMILIES.includes(family) ? { family, member: series.slice(2) } : undefined;
}
/** A family's grouped items sit in a series-like partition (`M#<family>`: no series starts so). */
export const reportGroupSeries = (family: ReportFamily) => join('M', family);
export const reportGroupPartition = (accountId: number, family: ReportFamily) => join('RPT', accountId, reportGroupSeries(family));
export const reportGroupDaySk = (group: string, day: string) => join('D', group, day);
export const reportGroupDay = (accountId: number, family: ReportFamily, group: string, day: string): Key => ({
  pk: reportGroupPartition(accountId, family),
  sk: reportGroupDaySk(group, day),
});
export const reportGroupBlock = (accountId: number, family: ReportFamily, group: string, block: number, day: string): Key => ({
  pk: reportGroupPartition(accountId, family),
  sk: join(reportBlockLane(group, block), day),
});
/**
 * An event's report fact: in the account's one fact partition, or (`sharded`, accounts made since) in one of
 * REPORT_FACT_SHARDS, by conversation (its facts stay together) or, without one, by the fact id.
 */
export const reportFact = (accountId: number, conversationId: number | null, factId: string, sharded = false): Key => ({
  pk: sharded ? join('RPTF', accountId, factShard(conversationId, factId)) : join('RPTF', accountId),
  sk: conversationId == null ? join('X', factId) : join('C', pad(conversationId), factId),
});
export const reportConversationFactsPrefix = (conversationId: number) => join('C', pad(conversationId), '');
/** Every fact partition an account may have: the unsharded one and the shards. */
export const reportFactsPartitions = (accountId: number) => [
  join('RPTF', accountId),
  ...Array.from({ length: REPORT_FACT_SHARDS }, (_, n) => join('RPTF', accountId, n)),
];
/** The fact partitions a conversation's facts may be in: the unsharded one and its shard. */
export const reportConversationFactsPartitions = (accountId: number, conversationId: number) => [
  join('RPTF', accountId),
  join('RPTF', accountId, factShard(conversationId, '')),
];
/** A reporting event sits among its conversation's facts (it is its event's fact: `E0` carries the figures). */
export const reportingEvent = (accountId: number, conversationId: number, factId: string, n: number, sharded = false): Key => ({
  pk: sharded ? join('RPTF', accountId, factShard(conversationId, factId)) : join('RPTF', accountId),
  sk: join('C', pad(conversationId), factId, `E${n}`),
});
export const reportingEventIndex = (accountId: number, createdAt: number, id: number) => ({
  gsi1pk: join('REVT', accountId),
  gsi1sk: join(pad(createdAt), pad(id)),
});
export const reportingEventsIndexPartition = (accountId: number) => join('REVT', accountId);
export const reportingEventSk = (createdAt: number) => pad(createdAt);
export const reportConversation = (accountId: number, conversationId: number): Key => ({
  pk: join('RPTC', accountId),
  sk: join('CONV', pad(conversationId)),
});
export const liveUnattended = (accountId: number, assigneeId: number | null, conversationId: number): Key => ({
  pk: join('RPTL', accountId),
  sk: join('U', assigneeId ?? 0, pad(conversationId)),
});
export const liveUnattendedPartition = (accountId: number) => join('RPTL', accountId);
export const liveUnattendedPrefix = join('U', '');
/** A pending report log: sorted by the time of its put (milliseconds), then a random tail (two batches in one ms). */
export const reportLog = (accountId: number, sk: string): Key => ({ pk: join('RPTP', accountId), sk });
export const reportLogSk = (ms: number, tail: string) => join('L', pad(ms, 13), tail);
/** Every log sorts between these two (the fold item `F` sorts before them). */
export const reportLogFirst = join('L', '');
export const reportLogLast = join('L', '~');
export const reportLogsPartition = (accountId: number) => join('RPTP', accountId);
export const reportFold = (accountId: number): Key => ({ pk: join('RPTP', accountId), sk: 'F' });
/**
 * A fold's listing item of the reporting events created in one UTC hour (`hour`: yyyymmddhh), chunk `n`: keyed by
 * the fold (its last log), so a retried fold puts the same items.
 */
export const reportingEventsListing = (accountId: number, hour: string, fold: string, n: number): Key => ({
  pk: join('RPTE', accountId),
  sk: join(hour, fold, n),
});
export const reportingEventsListingPartition = (accountId: number) => join('RPTE', accountId);
/** The sort keys of an hour's listing items (from `<hour>#`, to `<hour>#~`). */
export const reportingEventsListingHour = (hour: string) => join(hour, '');

// ── purge of deleted accounts and inboxes (shared/domain/purge) ──
export const purgeAccountJob = (accountId: number): Key => ({ pk: join('PURGE', 'ACCOUNT', accountId), sk: 'PURGE' });
export const purgeInboxJob = (accountId: number, inboxId: number): Key => ({ pk: join('PURGE', 'INBOX', accountId, inboxId), sk: 'PURGE' });
/** Every pending purge job (AP262: what `npm run purge` resumes). */
export const purgeJobIndex = (pk: string) => ({ gsi1pk: 'PURGES', gsi1sk: pk });
export const purgeJobs = () => ({ gsi1pk: 'PURGES', skPrefix: '' });
/** Report series partitions of an account other than per-user/inbox/team/label ones. */
export const reportSeriesPrefix = (accountId: number) => join('RPT', accountId, '');

/** Uniqueness sentinel: written with attribute_not_exists in the same transaction as its owner. */
export const unique = (scope: string, value: string): Key => ({ pk: join('UNIQ', scope, value), sk: 'UNIQ' });

export const sequence = (name: string): Key => ({ pk: join('SEQ', name), sk: 'SEQ' });
/** Progress of a maintenance scan (the re-seal of secrets), so that an interrupted one resumes. */
export const maintenance = (name: string): Key => ({ pk: join('MAINT', name), sk: 'MAINT' });

// ── help center: portals, categories, articles ──
export const portal = (accountId: number, id: number): Key => ({ pk: join('PORTALS', accountId), sk: join('PORTAL', pad(id)) });
export const portalsOf = (accountId: number) => ({ pk: join('PORTALS', accountId), skPrefix: join('PORTAL', '') });
export const portalSlugUnique = (slug: string): Key => unique('PORTAL', slug);
export const portalDomainUnique = (domain: string): Key => unique('PORTALDOMAIN', domain.toLowerCase());
export const helpCenterPartition = (accountId: number, portalId: number) => join('HC', accountId, portalId);
export const category = (accountId: number, portalId: number, id: number): Key => ({
  pk: join('HC', accountId, portalId),
  sk: join('CAT', pad(id)),
});
export const categoriesOf = (accountId: number, portalId: number) => ({ pk: join('HC', accountId, portalId), skPrefix: join('CAT', '') });
export const categorySlugUnique = (portalId: number, locale: string, slug: string): Key => unique(join('HCCAT', portalId, locale), slug);
export const article = (accountId: number, portalId: number, id: number): Key => ({
  pk: join('HC', accountId, portalId),
  sk: join('ART', pad(id)),
});
export const articlesOf = (accountId: number, portalId: number) => ({ pk: join('HC', accountId, portalId), skPrefix: join('ART', '') });
export const articleSlugUnique = (portalId: number, slug: string): Key => unique(join('HCART', portalId), slug);

// ── CSAT (shared/domain/csat) ──
/** A conversation's one survey, in its partition (its purge takes it along); found by the conversation's uuid (gsi1). */
export const csatSurvey = (accountId: number, displayId: number): Key => ({ pk: join('CONV', accountId, displayId), sk: 'CSAT' });
export const csatSurveyIndex = (uuid: string) => ({ gsi1pk: join('CSATUUID', uuid.toLowerCase()), gsi1sk: 'CSAT' });
/** An account's answered surveys, by the time of the first answer (the responses list reads a range). */
export const csatResponse = (accountId: number, createdAt: number, messageId: number): Key => ({
  pk: join('CSATR', accountId),
  sk: join(pad(createdAt), pad(messageId)),
});
export const csatResponsesPartition = (accountId: number) => join('CSATR', accountId);
export const csatResponseSk = (createdAt: number) => pad(createdAt);

// ── SLA (shared/domain/sla) ──
export const slaPolicy = (accountId: number, id: number): Key => ({ pk: join('SLAS', accountId), sk: join('SLA', pad(id)) });
export const slaPoliciesOf = (accountId: number) => ({ pk: join('SLAS', accountId), skPrefix: join('SLA', '') });
/** A conversation's applied SLA, in its partition (its purge takes it along). */
export const appliedSla = (accountId: number, displayId: number): Key => ({ pk: join('CONV', accountId, displayId), sk: 'ASLA' });
/** The account's applied SLAs by creation time (gsi1), as applied_slas reads a range. */
export const appliedSlaIndex = (accountId: number, createdAt: number, displayId: number) => ({
  gsi1pk: join('ASLAS', accountId),
  gsi1sk: join(pad(createdAt), pad(displayId)),
});
export const appliedSlasPartition = (accountId: number) => join('ASLAS', accountId);
export const appliedSlaSk = (createdAt: number) => pad(createdAt);

export type PermissibleKind = 'ACCOUNT' | 'USER' | 'BOT';

/**
 * Items that change seldom and that the event pipeline reads for every event (account, users and
 * memberships, bots, inboxes, teams, webhooks, rules, contact inboxes, a conversation's participants): a
 * per-container read cache may hold them for a few seconds. Conversations, messages and contacts are never
 * among them.
 */
export function slowlyChanging(partition: string, sk?: string): boolean {
  const [kind] = partition.split(SEP);
  if (kind === 'CONTACT') return !!sk?.startsWith(join('CI', ''));
  // A conversation's participants (who follows it) change like configuration, by an agent's explicit
  // call; the conversation and its messages never count.
  if (kind === 'CONV') return !!sk?.startsWith(join('PART', ''));
  if (kind === 'UNIQ') return partition.startsWith(join('UNIQ', 'SOURCE', ''));
  return ['ACCT', 'USER', 'BOT', 'BOTS', 'INBOXES', 'TEAMS', 'WEBHOOKS', 'RULES', 'UINBOXES', 'UTEAMS', 'SLAS'].includes(kind);
}

/** The partition of an account's socket subscriptions (the broadcast stage caches it briefly). */
export const cableSubscriptionPartition = (pk: string) => pk.split(SEP)[0] === 'CABLESUBS';

/** Partitions a credential lookup reads: tokens, accounts (with memberships and bot links), users, bots, platform apps. */
export const identityPartition = (pk: string) => ['TOKEN', 'ACCT', 'USER', 'BOT', 'PAPP'].includes(pk.split(SEP)[0]);
