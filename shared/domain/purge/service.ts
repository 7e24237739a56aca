import { exportsPrefix } from '../contacts/export.ts';
import { importsPrefix } from '../contacts/import.ts';
import { config, pipelineConfig } from '#shared/config.ts';
import * as keys from '#shared/db/keys.ts';
import type { Key } from '#shared/db/keys.ts';
import {
  deleteKeys,
  deletePurgeJob,
  firstItems,
  getPurgeJob,
  listPurgeJobs,
  removeAttribute,
  savePurgeProgress,
  type Partition,
  type PurgeJobRecord,
} from '#shared/db/repositories/purge.ts';
import { listAccountUsers } from '#shared/db/repositories/identity.ts';
import { dropInboxCounter, forgetCreationMark, type CounterRecord } from '#shared/db/repositories/counts.ts';
import { record } from '#shared/db/repositories/common.ts';
import { deleteNotification, listAllNotifications } from '#shared/db/repositories/notifications.ts';
import { webhookUrlKey } from '#shared/db/repositories/webhooks.ts';
import { helpCenterSentinels } from '#shared/db/repositories/help-center.ts';
import { log } from '#shared/log.ts';
import { deleteObjects, deleteObjectsUnder } from '#shared/storage/objects.ts';
import { uploadPrefix } from '#shared/storage/uploads.ts';
import { storedKeyOf } from '#shared/storage/file-urls.ts';
import { STATUSES } from '#shared/model/conversations.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import { sentinelsOf } from '../inboxes/service.ts';
import { Budget, DEFAULT_CHUNK_DELETES, runSteps, seriesOfFacts, type Step } from './plan.ts';

// The purge of a deleted account or inbox (Chatwoot's DeleteObjectJob and the models' `dependent:`
// associations). The deletion request removes what readers reach the rest by (the account item and
// memberships, or the inbox item) and writes a job item in the same transaction; the job item's stream
// record brings it to the dispatcher, which runs one bounded chunk and records its progress on the job
// item, whose change brings the next chunk, until nothing is left and the job item goes. Every key is
// built from the purged account's (and inbox's) own ids, and every enumeration reads that account's own
// partitions or index partitions, so the cost follows what the account holds, never the table.
//
// An inbox's purge: its conversations (messages, attachments' files, participants, signals, label and
// contact links, reporting events, report memory, search tail copies, state slot), its contact inboxes
// (with their source-id sentinels), its counters, members and report series. Its contacts stay: they
// belong to the account. An account's purge: every inbox as above (and the inbox item), every contact,
// then every other partition of the account, its bots and their tokens, its members' notifications and
// filters, and its files in storage. Users stay (they may belong to other accounts; Chatwoot keeps them).

type Item = Record<string, unknown>;
type Ctx = { job: PurgeJobRecord };

const keyOf = (i: Item): Key => ({ pk: String(i.pk), sk: String(i.sk) });

/** Deletes, in order, groups of keys (dependents before what they were found by), within the budget. */
async function remove(budget: Budget, ...groups: Key[][]) {
  for (const g of groups) {
    if (!g.length) continue;
    budget.take(g.length);
    await deleteKeys(g);
  }
}

/** Deletes a whole partition (or the part under a prefix); true when it is empty. */
async function drain(p: Partition, budget: Budget, dependents?: (items: Item[]) => Promise<Key[]>): Promise<boolean> {
  while (!budget.spent) {
    const items = await firstItems(p, budget.page());
    if (!items.length) return true;
    const parents = items.map(keyOf);
    await remove(budget, dependents ? await dependents(items) : [], parents);
  }
  return false;
}

const attachmentKeys = (messages: Item[]) =>
  messages.flatMap((m) =>
    ((m.attachments as Item[] | undefined) ?? []).map((a) => storedKeyOf(a.data_url, true)).filter((k): k is string => !!k),
  );

/** One conversation: everything in its partition and what points at it, then the conversation item. */
async function purgeConversation(accountId: number, displayId: number, budget: Budget): Promise<boolean> {
  const pk = keys.conversation(accountId, displayId).pk;
  const messagesDone = await drain({ pk, prefix: 'M' }, budget, async (messages) => {
    await deleteObjects(attachmentKeys(messages));
    return messages.map((m) => keys.searchTail(accountId, Number(m.created_at), Number(m.id)));
  });
  if (!messagesDone) return false;
  // Participants, signals, mail thread items and the applied SLA: the conversation item goes last.
  for (const prefix of ['PART#', 'SIGNAL#', keys.mailThreadPrefix, keys.appliedSla(accountId, displayId).sk]) {
    if (!(await drain({ pk, prefix }, budget))) return false;
  }
  // Its CSAT survey, and the response item it names (outside the partition), before the survey.
  const [survey] = await firstItems({ pk, prefix: 'CSAT' }, 1);
  if (survey) {
    const answered = typeof survey.responded_at === 'number' && typeof survey.message_id === 'number';
    await remove(budget, answered ? [keys.csatResponse(accountId, Number(survey.responded_at), Number(survey.message_id))] : [], [
      keyOf(survey),
    ]);
  }
  if (budget.spent) return false;
  const [conv] = await firstItems({ pk, prefix: 'CONV' }, 1);
  if (!conv) {
    // Found through the activity index (gsi3), which may still show a conversation deleted a moment ago.
    budget.charge();
    return true;
  }
  // Its reporting events, report figures and report memory are the report stage's: the conversation's
  // removal raises `conversation_deleted`, which negates its facts, takes its reporting events out of the
  // listings and deletes its memory (in an account's purge, the account's report partitions go whole).
  const labels = Array.isArray(conv.labels) ? (conv.labels as string[]) : [];
  await removeAttribute(keys.conversationState(accountId, displayId), `c${displayId}`);
  await forgetCreationMark(accountId, {
    id: displayId,
    team_id: (conv.team_id as number | null) ?? null,
    status: String(conv.status),
    assignee_id: (conv.assignee_id as number | null) ?? null,
  });
  await remove(
    budget,
    [
      ...labels.map((l) => keys.conversationLabel(accountId, l, displayId)),
      ...(conv.contact_id != null ? [keys.contactConversation(accountId, Number(conv.contact_id), displayId)] : []),
    ],
    [keyOf(conv)],
  );
  return true;
}

/** The steps of an inbox's purge (an account's purge then removes the inbox item and its sentinels itself). */
function inboxSteps(accountId: number, inboxId: number): Step<unknown>[] {
  return [
    {
      name: 'conversations',
      run: async (_c, budget) => {
        for (const status of STATUSES) {
          const p = { gsi3pk: keys.conversationsByInboxStatus(accountId, inboxId, status).gsi3pk };
          for (let page = await firstItems(p, budget.page()); page.length; page = await firstItems(p, budget.page())) {
            for (const c of page) if (!(await purgeConversation(accountId, Number(c.id), budget))) return false;
            if (budget.spent) return false;
          }
        }
        return true;
      },
    },
    {
      // Chatwoot's conversations take their notifications with them (`dependent: :destroy_async`): each
      // member's notifications are read, those of this inbox's conversations deleted (counters moved).
      name: 'notifications',
      run: async (_c, budget) => {
        for (const m of await listAccountUsers(accountId)) {
          const theirs = (await listAllNotifications(accountId, m.user_id)).filter((n) => n.primary_actor?.inbox_id === inboxId);
          for (const n of theirs) {
            if (budget.spent) return false;
            budget.take(1);
            await deleteNotification(n);
          }
        }
        return true;
      },
    },
    {
      name: 'contact inboxes',
      run: (_c, budget) =>
        drain({ gsi2pk: keys.contactInboxesOfInbox(accountId, inboxId).gsi2pk }, budget, async (cis) =>
          cis.map((ci) => keys.sourceIdUnique(inboxId, String(ci.source_id))),
        ),
    },
    {
      // Each counter's count leaves the account counters (AP67) with it.
      name: 'counters',
      run: async (_c, budget) => {
        while (!budget.spent) {
          const items = await firstItems({ pk: keys.conversationCounters(accountId).pk, prefix: `${inboxId}#` }, budget.page());
          if (!items.length) return true;
          for (const item of items) {
            if (budget.spent) return false;
            budget.take(2);
            await dropInboxCounter(record<CounterRecord>(item)!);
          }
        }
        return false;
      },
    },
    {
      name: 'members',
      run: (_c, budget) =>
        drain({ pk: keys.inboxMembersOf(accountId, inboxId).pk, prefix: keys.inboxMembersOf(accountId, inboxId).skPrefix }, budget),
    },
    {
      name: 'report series',
      run: (_c, budget) => drain({ pk: keys.reportSeriesPartition(accountId, keys.reportSeries.inbox(inboxId)) }, budget),
    },
    // An IMAP inbox's polling state (its own partition: one item).
    { name: 'imap state', run: (_c, budget) => drain({ pk: keys.imapState(accountId, inboxId).pk }, budget) },
    { name: 'files', run: (_c, budget) => storage(`avatars/inboxes/${accountId}/${inboxId}/`, budget) },
    // Its summary (AP28) went with the inbox item; in an account's purge the inbox item goes after this.
    {
      name: 'summary',
      run: async (_c, budget) => {
        await remove(budget, [keys.inboxSummary(accountId, inboxId)]);
        return true;
      },
    },
  ];
}

async function storage(prefix: string, budget: Budget): Promise<boolean> {
  if (!config().avatarBucket) return true;
  return deleteObjectsUnder(prefix, budget.page(1000));
}

/** One contact: its contact inboxes (and their sentinels), its conversation links, its notes, its unique values, then it. */
async function purgeContact(accountId: number, contactId: number, budget: Budget): Promise<boolean> {
  const pk = keys.contactPartition(accountId, contactId);
  const cisDone = await drain({ pk, prefix: 'CI#' }, budget, async (cis) =>
    cis.map((ci) => keys.sourceIdUnique(Number(ci.inbox_id), String(ci.source_id))),
  );
  if (!cisDone) return false;
  if (!(await drain({ pk: keys.contactConversations(accountId, contactId).pk }, budget))) return false;
  if (!(await drain({ pk: keys.contactNotesOf(accountId, contactId).pk }, budget))) return false;
  if (budget.spent) return false;
  const [contact] = await firstItems({ pk, prefix: 'CONTACT' }, 1);
  const uniques = (['email', 'phone_number', 'identifier'] as const)
    .filter((f) => typeof contact?.[f] === 'string' && contact[f])
    .map((f) => keys.contactUnique(accountId, f, String(contact![f])));
  await remove(budget, uniques, contact ? [keyOf(contact)] : [], [keys.contactListing(accountId, contactId)]);
  return true;
}

/** A partition of items that each own a uniqueness sentinel (or more) built from their fields. */
const withSentinels =
  (p: Partition, sentinels: (i: Item) => Key[], extra?: (i: Item, budget: Budget) => Promise<boolean>): Step<Ctx>['run'] =>
  async (_c, budget) => {
    while (!budget.spent) {
      const items = await firstItems(p, budget.page());
      if (!items.length) return true;
      for (const i of items) if (extra && !(await extra(i, budget))) return false;
      await remove(budget, items.flatMap(sentinels), items.map(keyOf));
    }
    return false;
  };

function accountSteps(a: number): Step<Ctx>[] {
  const whole = (name: string, pk: string): Step<Ctx> => ({ name, run: (_c, budget) => drain({ pk }, budget) });
  return [
    {
      name: 'inboxes',
      run: async (_c, budget) => {
        const p = keys.inboxesOf(a);
        while (!budget.spent) {
          const [inbox] = await firstItems({ pk: p.pk, prefix: p.skPrefix }, 1);
          // Then the mark that the account's inbox summaries were complete (AP29), and any summary left.
          if (!inbox) return drain({ pk: p.pk, prefix: keys.inboxSummariesOf(a).skPrefix }, budget);
          const id = Number(inbox.id);
          const steps = inboxSteps(a, id);
          if ((await runSteps(steps, 0, undefined, budget)) < steps.length) return false;
          if (budget.spent) return false;
          await remove(
            budget,
            sentinelsOf(inbox as unknown as InboxRecord).map((s) => s.key),
            [keyOf(inbox)],
          );
        }
        return false;
      },
    },
    {
      name: 'contacts',
      run: async (_c, budget) => {
        for (const p of [{ pk: keys.contactListingPartition(a) }, { gsi2pk: keys.unlistedContactsOf(a).gsi2pk }] as Partition[]) {
          for (let page = await firstItems(p, budget.page()); page.length; page = await firstItems(p, budget.page())) {
            for (const i of page) {
              const id = 'pk' in p ? keys.contactIdFromListingSk(String(i.sk)) : Number(i.id);
              if (!(await purgeContact(a, id, budget))) return false;
            }
            if (budget.spent) return false;
          }
        }
        return true;
      },
    },
    {
      name: 'labels',
      run: withSentinels(
        { pk: keys.labelsOf(a).pk },
        (l) => [keys.labelTitleUnique(a, String(l.title))],
        async (l, budget) =>
          (await drain({ pk: keys.conversationsWithLabel(a, String(l.title)).pk }, budget)) &&
          drain({ pk: keys.reportSeriesPartition(a, keys.reportSeries.label(String(l.title))) }, budget),
      ),
    },
    {
      name: 'webhooks',
      run: withSentinels(
        { pk: keys.webhooksOf(a).pk },
        (w) => (typeof w.url === 'string' ? [webhookUrlKey(a, w.url)] : []),
        async (w, budget) => {
          for (const pk of [keys.webhookDeliveryAttempts(a, Number(w.id)).pk, ...keys.webhookDeliveryRingPartitions(a, Number(w.id))]) {
            if (!(await drain({ pk }, budget))) return false;
          }
          return true;
        },
      ),
    },
    {
      name: 'teams',
      run: withSentinels(
        { pk: keys.teamsOf(a).pk },
        (t) => (String(t.sk).startsWith('TEAM#') && typeof t.name === 'string' ? [keys.teamNameUnique(a, t.name)] : []),
        (t, budget) =>
          String(t.sk).startsWith('TEAM#')
            ? drain({ pk: keys.reportSeriesPartition(a, keys.reportSeries.team(Number(t.id))) }, budget)
            : Promise.resolve(true),
      ),
    },
    {
      name: 'attribute definitions',
      run: withSentinels({ pk: keys.attributeDefinitionsOf(a).pk }, (d) => [
        keys.attributeKeyUnique(a, String(d.attribute_model), String(d.attribute_key)),
      ]),
    },
    {
      name: 'companies',
      run: withSentinels(
        { pk: keys.companiesOf(a).pk },
        (c) => (typeof c.domain === 'string' && c.domain ? [keys.companyDomainUnique(a, c.domain)] : []),
        (c, budget) => drain({ pk: keys.companyContactsPartition(a, Number(c.id)) }, budget),
      ),
    },
    {
      name: 'canned responses',
      run: withSentinels({ pk: keys.cannedResponsesOf(a).pk }, (c) => [keys.shortCodeUnique(a, String(c.short_code))]),
    },
    {
      // Each portal's categories and articles (with their slug sentinels), then the portal and its slug and domain.
      name: 'help center',
      run: withSentinels({ pk: keys.portalsOf(a).pk }, helpCenterSentinels, (portal, budget) =>
        withSentinels({ pk: keys.helpCenterPartition(a, Number(portal.id)) }, helpCenterSentinels)(undefined as never, budget),
      ),
    },
    {
      name: 'integration hooks',
      run: withSentinels({ pk: keys.integrationHooksOf(a).pk }, (h) =>
        typeof h.app_id === 'string' ? [keys.integrationHookAppUnique(a, h.app_id)] : [],
      ),
    },
    {
      name: 'report facts',
      // Each fact names the report series it added to: those partitions go before the fact.
      // Every fact partition: the unsharded one and the shards.
      run: async (_c, budget) => {
        const emptied = new Set<string>();
        for (const pk of keys.reportFactsPartitions(a)) {
          const done = await drain({ pk }, budget, async (facts) => {
            for (const s of seriesOfFacts(facts as never)) {
              if (emptied.has(s)) continue;
              if (!(await drain({ pk: keys.reportSeriesPartition(a, s) }, budget))) throw new ChunkFull();
              emptied.add(s);
            }
            return [];
          }).catch((err) => {
            if (err instanceof ChunkFull) return false;
            throw err;
          });
          if (!done) return false;
        }
        return true;
      },
    },
    whole('account report series', keys.reportSeriesPartition(a, keys.reportSeries.account())),
    ...keys.REPORT_FAMILIES.map((f) => whole(`report grouped items ${f}`, keys.reportGroupPartition(a, f))),
    whole('report conversations', keys.reportConversation(a, 0).pk),
    whole('unattended', keys.liveUnattendedPartition(a)),
    whole('report logs', keys.reportLogsPartition(a)),
    whole('reporting events listing', keys.reportingEventsListingPartition(a)),
    whole('csat responses', keys.csatResponsesPartition(a)),
    whole('sla policies', keys.slaPoliciesOf(a).pk),
    {
      name: 'search index',
      run: async (_c, budget) => {
        const [head] = await firstItems({ pk: keys.searchHead(a).pk, prefix: 'HEAD' }, 1);
        if (head) {
          // The head keeps its lists as JSON text (search-index.ts putSearchHead).
          const listed = (field: string) =>
            (typeof head[field] === 'string' ? JSON.parse(head[field] as string) : (head[field] ?? [])) as Item[];
          const all = [...listed('segments'), ...listed('packs'), ...listed('garbage')];
          for (const s of all) if (!(await drain({ pk: keys.searchSegment(a, String(s.id)) }, budget))) return false;
          // Large segments' buckets: every gram partition of each partition count they name (shared by them).
          for (const g of new Set(all.map((s) => Number(s.g ?? 0)).filter((g) => g > 0)))
            for (let part = 0; part < g; part++) if (!(await drain({ pk: keys.searchGramPartition(a, g, part) }, budget))) return false;
          if (budget.spent) return false;
          await remove(budget, [keyOf(head)]);
        }
        return drain({ pk: keys.searchTailPartition(a) }, budget);
      },
    },
    whole('conversation state', keys.conversationStatePartition(a)),
    whole('counters', keys.conversationCounters(a).pk),
    whole('account counters', keys.accountConversationCounters(a).pk),
    whole('automation rules', keys.automationRulesOf(a).pk),
    whole('macros', keys.macrosOf(a).pk),
    // Its audit log (docs/audit.md): Chatwoot destroys an account's audits with it.
    whole('audit log', keys.auditLogOf(a).pk),
    whole('audit log counts', keys.auditCountsOf(a).pk),
    whole('contact imports', keys.contactImportsOf(a)),
    whole('dashboard apps', keys.dashboardAppsOf(a).pk),
    whole('campaigns', keys.campaignsOf(a).pk),
    whole('socket subscriptions', keys.cableSubscriptionsOf(a).pk),
    whole('presence', keys.presenceOf(a).pk),
    {
      name: 'members',
      run: async ({ job }, budget) => {
        for (const u of job.user_ids ?? []) {
          if (!(await drain({ pk: keys.notificationCounter(a, u).pk }, budget))) return false;
          if (!(await drain({ pk: keys.customFilterCount(a, u).pk }, budget))) return false;
          if (!(await drain({ pk: keys.reportSeriesPartition(a, keys.reportSeries.agent(u)) }, budget))) return false;
        }
        return true;
      },
    },
    {
      name: 'agent bots',
      run: async ({ job }, budget) => {
        const p = keys.agentBotsOf(a);
        while (!budget.spent) {
          const bots = await firstItems({ gsi1pk: p.gsi1pk }, budget.page());
          if (!bots.length) return true;
          // Their tokens, and the deleting app's rows for them (an account's bot made through the platform API).
          const dependents = [
            ...bots.filter((b) => typeof b.token_hash === 'string').map((b) => keys.token(String(b.token_hash))),
            ...(job.app_id !== undefined ? bots.map((b) => keys.permissible(job.app_id!, 'BOT', Number(b.id))) : []),
          ];
          await remove(budget, dependents, bots.map(keyOf));
        }
        return false;
      },
    },
    whole('account partition', keys.account(a).pk),
    {
      name: 'sequences',
      run: async (_c, budget) => {
        await remove(budget, [keys.sequence(keys.conversationSequence(a)), keys.sequence(keys.campaignSequence(a))]);
        return true;
      },
    },
    {
      name: 'files',
      run: async (_c, budget) => {
        for (const prefix of [
          `attachments/${a}/`,
          `attachments/direct/${a}/`,
          `avatars/contacts/${a}/`,
          `avatars/inboxes/${a}/`,
          // Its own uploads: portal logos, articles' images, and uploads nothing names.
          uploadPrefix(a),
          exportsPrefix(a),
          importsPrefix(a),
        ]) {
          if (!(await storage(prefix, budget))) return false;
        }
        return true;
      },
    },
  ];
}

class ChunkFull extends Error {}

/**
 * Tests: while paused the dispatcher leaves purge jobs alone (as if their queue message were lost or
 * dead-lettered), so a test can interrupt a purge itself and check that a rerun completes it.
 */
export const purgeSwitch = { paused: false };

export const stepsOf = (job: PurgeJobRecord): Step<Ctx>[] =>
  job.kind === 'account' ? accountSteps(job.account_id) : (inboxSteps(job.account_id, job.inbox_id!) as Step<Ctx>[]);

export interface ChunkResult {
  /** The job is finished (or was gone). */
  done: boolean;
  deleted: number;
  step: number;
}

/**
 * One chunk of a purge job: at most `deletes` deletes, then its progress on the job item (whose stream
 * record brings the next chunk), or the job item's removal when nothing is left. Safe to run again and
 * concurrently: every step deletes what it finds now.
 */
export async function purgeChunk(key: Key, opts: { deletes?: number; failAfter?: number } = {}): Promise<ChunkResult> {
  const job = await getPurgeJob(key);
  if (!job) return { done: true, deleted: 0, step: 0 };
  const budget = new Budget(opts.deletes ?? pipelineConfig().purgeChunkDeletes ?? DEFAULT_CHUNK_DELETES, opts.failAfter);
  const steps = stepsOf(job);
  const step = await runSteps(steps, job.step, { job }, budget);
  if (step >= steps.length) {
    await deletePurgeJob(key);
    log.info('purge finished', {
      kind: job.kind,
      accountId: job.account_id,
      inboxId: job.inbox_id,
      deleted: job.deleted + budget.deleted,
      chunks: job.chunks + 1,
    });
    return { done: true, deleted: budget.deleted, step };
  }
  await savePurgeProgress(key, { step, deleted: budget.deleted });
  log.info('purge chunk', {
    kind: job.kind,
    accountId: job.account_id,
    inboxId: job.inbox_id,
    step: steps[step].name,
    deleted: budget.deleted,
  });
  return { done: false, deleted: budget.deleted, step };
}

/** Runs a job to its end here (the rerun of `npm run purge`). */
export async function runPurge(key: Key, opts: { deletes?: number } = {}): Promise<number> {
  let deleted = 0;
  for (;;) {
    const r = await purgeChunk(key, opts);
    deleted += r.deleted;
    if (r.done) return deleted;
  }
}

/** Finishes every pending job (after a crash, or a job whose queue message was dead-lettered). */
export async function resumePurges(): Promise<{ jobs: number; deleted: number }> {
  const jobs = await listPurgeJobs();
  let deleted = 0;
  for (const key of jobs) deleted += await runPurge(key);
  return { jobs: jobs.length, deleted };
}
