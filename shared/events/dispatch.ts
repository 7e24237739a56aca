import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { inGroupOrder } from '#shared/queues/fifo.ts';
import { notify } from '#shared/domain/notifications/pipeline.ts';
import { recordReports, withReportBatch } from '#shared/domain/reports/pipeline.ts';
import { getItem, withReadCache } from '#shared/db/repositories/common.ts';
import { getAgentBots } from '#shared/db/repositories/identity.ts';
import { getMessage } from '#shared/db/repositories/messages.ts';
import { answerWithTemplates } from '#shared/domain/message-templates/hooks.ts';
import { runCsat } from '#shared/domain/csat/pipeline.ts';
import { runSla } from '#shared/domain/sla/pipeline.ts';
import { getInbox } from '#shared/db/repositories/inboxes.ts';
import { listWebhooks } from '#shared/db/repositories/webhooks.ts';
import type { AgentBotRecord } from '#shared/model/identity.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import { log } from '#shared/log.ts';
import { METRIC_NAMES } from '#shared/metric-names.ts';
import { count } from '#shared/metrics.ts';
import { runAutomation, type RuleWebhook } from './automation.ts';
import { broadcastEvent } from '#shared/realtime/broadcast.ts';
import { isContactImport, isMailRequest, isPurgeJob, type Change } from '#shared/model/change.ts';
import { continuityMail } from '#shared/domain/mail/continuity.ts';
import type { MailRequestRecord, QueuedMail } from '#shared/model/mail.ts';
import { enqueueMails } from '#shared/queues/mail.ts';
import { enqueueDeliveries, type Delivery } from '#shared/queues/deliveries.ts';
import { decodeQueueBody } from '#shared/codec/queue-text.ts';
import { frozenAccounts } from '#shared/domain/accounts/suspension.ts';
import { eventsOf, REALTIME_ONLY, type DomainEvent, type DomainEventName } from '#shared/domain/events/domain-events.ts';
import { pipelineCache } from './read-cache.ts';
import { isRetry, wantsSend } from '#shared/domain/channels/send-rule.ts';
import { hasRoom } from '#shared/channels/room-types.ts';
import { enqueueSends, type SendJob } from '#shared/queues/channels.ts';
import { sealWhenDue } from '#shared/search/index.ts';
import { fileSigningReady } from '#shared/storage/file-urls.ts';
import {
  contactPayload,
  conversationContext,
  conversationPushData,
  conversationWebhookPayload,
  inboxPayload,
  messageWebhookPayload,
  typingPayload,
  webwidgetPayload,
  type ConversationContext,
} from '#shared/domain/events/payloads.ts';

// Events queue → receivers (docs/chatwoot.md#who-receives-what, docs/chatwoot.md#events-delivered-to-bots): account
// webhooks subscribed to the event, the API inbox's callback URL, and the agent bots of the inbox and of the
// conversation; automation rules run first, so their own changes follow as new events.

/** An API inbox's callback receives its conversations' events without subscribing. */
const CALLBACK_EVENTS = new Set<DomainEventName>([
  'conversation_created',
  'conversation_updated',
  'conversation_status_changed',
  'message_created',
  'message_updated',
  'conversation_typing_on',
  'conversation_typing_off',
]);
const BOT_EVENTS = new Set<DomainEventName>(['message_created', 'message_updated', 'conversation_opened', 'conversation_resolved']);

interface Built {
  payload: Record<string, unknown>;
  inbox?: InboxRecord;
  ctx?: ConversationContext;
}

/** The payload of an event, or nothing when there is nothing to tell (deleted record, activity message). */
/**
 * Reads shared by the events of one change: a status change is up to four events about the same
 * conversation, all told from one context and one webhook list.
 */
interface ChangeReads {
  conversation?: ReturnType<typeof conversationContext>;
  webhooks?: ReturnType<typeof listWebhooks>;
}

async function build(event: DomainEvent, reads: ChangeReads): Promise<Built | undefined> {
  if (event.conversation) {
    const ctx = await (reads.conversation ??= conversationContext(event.accountId, event.conversation.id, event.conversation));
    if (!ctx) return undefined;
    return { payload: conversationWebhookPayload(event, ctx), inbox: ctx.refs.inboxes.get(ctx.conversation.inbox_id), ctx };
  }
  if (event.message) {
    // Activity messages are never delivered (docs/chatwoot.md#who-receives-what).
    if (event.message.message_type === 2) return undefined;
    const ctx = await messageContext(event.accountId, event.message);
    if (!ctx) return undefined;
    return { payload: messageWebhookPayload(event, event.message, ctx), inbox: ctx.refs.inboxes.get(event.message.inbox_id), ctx };
  }
  if (event.name === 'webwidget_triggered') return webwidgetPayload(event);
  if (event.signal?.conversation_id != null) {
    const ctx = await conversationContext(event.accountId, event.signal.conversation_id);
    if (!ctx) return undefined;
    return { payload: await typingPayload(event, ctx), inbox: ctx.refs.inboxes.get(ctx.conversation.inbox_id), ctx };
  }
  if (event.contact) {
    const payload = await contactPayload(event, event.contact);
    return payload ? { payload } : undefined;
  }
  if (event.inbox) return { payload: inboxPayload(event, event.inbox), inbox: event.inbox };
  return undefined;
}

/** Re-reads, in milliseconds, of a young message's conversation that is not there yet. */
const CONTEXT_REREADS_MS = [50, 200, 750];
/** A message this young whose conversation is missing is retried by the queue rather than dropped. */
export const YOUNG_MESSAGE_S = 120;

/**
 * A message's conversation context. A new conversation's first message is written just before the conversation
 * item (shared/db/repositories/conversations.ts), so its change can arrive first: the conversation is read again a
 * few times, and if a young message's conversation is still missing the change goes back to the queue (its group
 * waits, so order holds) instead of being dropped with its webhooks. A message whose conversation never came (a
 * creation that died between the two writes) or that is gone itself is told to nobody, as before.
 */
async function messageContext(accountId: number, m: NonNullable<DomainEvent['message']>) {
  const read = () => conversationContext(accountId, m.conversation_id, undefined, [m]);
  const ctx = await read();
  if (ctx || Date.now() / 1000 - m.created_at >= YOUNG_MESSAGE_S) return ctx;
  // Gone itself (deleted with its conversation): nothing to wait for.
  if (!(await getMessage(accountId, m.conversation_id, m.id))) return undefined;
  for (const wait of CONTEXT_REREADS_MS) {
    await new Promise((r) => setTimeout(r, wait));
    const later = await read();
    if (later) return later;
  }
  throw new Error(`conversation ${accountId}/${m.conversation_id} of message ${m.id} is not written yet`);
}

async function botsFor(built: Built): Promise<AgentBotRecord[]> {
  const ids = [built.inbox?.agent_bot_id, built.ctx?.conversation.assignee_agent_bot_id].filter(
    (id): id is number => typeof id === 'number',
  );
  const unique = [...new Set(ids)];
  if (!unique.length) return [];
  return (await getAgentBots(unique)).filter((b): b is AgentBotRecord => !!b && !!b.outgoing_url);
}

async function deliveriesFor(event: DomainEvent, built: Built, reads: ChangeReads): Promise<Delivery[]> {
  const body = JSON.stringify(built.payload);
  // No secret travels on the queue: the deliver function reads the signing secret of `target` itself.
  const delivery = (target: Delivery['target'], url: string, payload = body): Delivery => ({
    id: `${event.id}:${target.kind}:${target.id}`,
    event: event.name,
    event_id: event.id,
    url,
    body: payload,
    target,
    account_id: event.accountId,
    scope: event.scope,
    created_at: Date.now(),
  });
  const out: Delivery[] = [];
  for (const w of await (reads.webhooks ??= listWebhooks(event.accountId))) {
    if ((w.subscriptions as string[]).includes(event.name)) out.push(delivery({ kind: 'webhook', id: w.id }, w.url));
  }
  const inbox = built.inbox;
  if (inbox?.channel_type === 'Channel::Api' && inbox.webhook_url && CALLBACK_EVENTS.has(event.name)) {
    out.push(delivery({ kind: 'api_inbox', id: inbox.id }, inbox.webhook_url));
  }
  // The widget event reaches only the inbox's own bot (docs/chatwoot.md#events-delivered-to-bots).
  const bots =
    event.name === 'webwidget_triggered'
      ? await botsFor({ ...built, ctx: undefined })
      : BOT_EVENTS.has(event.name)
        ? await botsFor(built)
        : [];
  for (const bot of bots) {
    out.push(delivery({ kind: 'agent_bot', id: bot.id }, bot.outgoing_url!));
  }
  return out;
}

/**
 * `send_webhook_event`: the conversation's push data as `automation_event.<event_name>`
 * (docs/chatwoot.md#webhook-payloads).
 */
async function ruleDeliveries(event: DomainEvent, hooks: RuleWebhook[]): Promise<Delivery[]> {
  const out: Delivery[] = [];
  for (const h of hooks) {
    const ctx = await conversationContext(event.accountId, h.conversation.id, h.conversation);
    if (!ctx) continue;
    const name = `automation_event.${event.name}`;
    out.push({
      id: `${event.id}:automation:${h.rule.id}`,
      event: name,
      event_id: event.id,
      url: h.url,
      body: JSON.stringify({ event: name, ...conversationPushData(ctx) }),
      target: { kind: 'automation', id: h.rule.id },
      account_id: event.accountId,
      scope: event.scope,
      created_at: Date.now(),
    });
  }
  return out;
}

/** A change whose images did not fit on the queue: the item as it is now stands in for the new image. */
async function complete(change: Change): Promise<Change> {
  if (!change.truncated) return change;
  const current = await getItem<Record<string, unknown>>({ pk: change.pk, sk: change.sk }, true);
  return {
    ...change,
    newImage: current ? { ...current, type: change.type } : undefined,
    oldImage: current ? { ...current, type: change.type } : undefined,
  };
}

/** Accounts that got messages in the batch being dispatched: their `q` index tail is sealed when due (shared/search). */
const searchSealCandidates = new Set<number>();

/**
 * A message a channel room sends (docs/channels.md#outgoing): a new outgoing or template message in a channel
 * inbox (Chatwoot's send rule), or one an agent retried.
 */
async function sendJobOf(event: DomainEvent, built: Built | undefined): Promise<SendJob | undefined> {
  const m = event.message;
  if (!m) return undefined;
  const retry = event.name === 'message_updated' && isRetry(event.changes, m);
  if (!(event.name === 'message_created' && wantsSend(m)) && !retry) return undefined;
  // A new conversation's first message can be dispatched before the conversation item is written (no context
  // then): the inbox is read on its own, so the message is still sent.
  const inbox = built?.inbox ?? (await getInbox(m.account_id, m.inbox_id));
  if (!inbox || !hasRoom(inbox)) return undefined;
  const job = { account_id: m.account_id, inbox_id: m.inbox_id, conversation_id: m.conversation_id, message_id: m.id };
  return { ...job, queued_at: Date.now(), ...(retry ? { retry_of: m.updated_at } : {}) };
}

/**
 * The deliveries of one change (automation rules run here, so their own changes follow as new events); the channel
 * sends it asks for go to `sends`.
 */
export async function dispatchChange(
  raw: Change,
  suspended = frozenAccounts(),
  sends: SendJob[] = [],
  mails: QueuedMail[] = [],
): Promise<Delivery[]> {
  // Payloads carry signed file links, made synchronously by the views (a no-op once loaded).
  await fileSigningReady();
  const change = await complete(raw);
  const reads: ChangeReads = {};
  const out: Delivery[] = [];
  for (const event of eventsOf(change)) {
    // A suspended account is frozen: no rules, webhooks or bot calls (the API refuses it everywhere too);
    // so is a deleted one (its purge is under way: nothing may be written behind it).
    const frozen = await suspended(event.accountId);
    if (frozen) {
      // A deleted account's purge itself removes contacts and notifications (their removal events end here): quietly.
      (frozen === 'deleted' ? log.debug : log.warn)(`event not dispatched: account ${frozen}`, {
        eventId: event.id,
        event: event.name,
        accountId: event.accountId,
      });
      continue;
    }
    // Reports only (Chatwoot destroys a deleted conversation's reporting events, messages and row).
    if (event.name === 'conversation_deleted') {
      await recordReports(event, undefined);
      await runCsat(event, undefined, undefined);
      await runSla(event, undefined);
      continue;
    }
    if (REALTIME_ONLY.has(event.name)) {
      const ctx = event.conversation
        ? await (reads.conversation ??= conversationContext(event.accountId, event.conversation.id, event.conversation))
        : undefined;
      await broadcastEvent(event, ctx);
      // A conversation moved to another contact (a merge): its applied SLA keeps the contact applied_slas shows.
      if (event.name === 'conversation_contact_changed') await runSla(event, ctx);
      continue;
    }
    const hooks = await runAutomation(event);
    const built = await build(event, reads);
    // The inbox's greeting and out-of-office replies to a contact's message (their own events follow).
    if (event.name === 'message_created' && event.message && built) {
      const m = event.message;
      const sender = m.sender_type === 'Contact' && m.sender_id ? built.ctx?.refs.contacts.get(m.sender_id) : undefined;
      await answerWithTemplates(m, { inbox: built.inbox, sender });
    }
    await broadcastEvent(event, built?.ctx);
    const deliveries = [...(built ? await deliveriesFor(event, built, reads) : []), ...(await ruleDeliveries(event, hooks))];
    out.push(...deliveries);
    const send = await sendJobOf(event, built);
    if (send) sends.push(send);
    // Conversation continuity: a web widget or API contact with an email gets the agent's reply by mail.
    if (event.name === 'message_created' && event.message) {
      const ctx = built?.ctx;
      const mail = await continuityMail(event.message, {
        inbox: built?.inbox,
        conversation: ctx?.conversation,
        contact: ctx?.refs.contacts.get(ctx.conversation.contact_id),
      });
      if (mail) mails.push(mail);
    }
    await notify(event, built?.ctx);
    if (event.name === 'message_created') searchSealCandidates.add(event.accountId);
    await recordReports(event, built?.ctx);
    // CSAT: a resolution sends the survey; an answer to it is recorded (its own events follow).
    await runCsat(event, built?.ctx, built?.inbox);
    // SLA: a conversation with a policy gets its applied SLA, evaluated; a deadline ahead, its wake-up.
    await runSla(event, built?.ctx);
    log.info('event dispatched', { eventId: event.id, event: event.name, accountId: event.accountId, deliveries: deliveries.length });
    count(METRIC_NAMES.eventsDispatched);
  }
  return out;
}

/**
 * One batch of the events queue (FIFO): records of one group in order; the first failure returns it
 * and the rest of its group to the queue, so a conversation's events never overtake each other. The
 * batch's deliveries go out together, ten per SendMessageBatch, in each group's order; if that fails
 * the whole batch returns (delivery ids deduplicate what was already sent). Seldom-changing reads come
 * from the container's cache (read-cache.ts).
 */
export const dispatchChanges = (event: SQSEvent): Promise<SQSBatchResponse> =>
  withReadCache(pipelineCache, async () => {
    const deliveries: Delivery[] = [];
    const sends: SendJob[] = [];
    const mails: QueuedMail[] = [];
    const suspended = frozenAccounts();
    let result: SQSBatchResponse;
    try {
      // Figure-only report facts of the batch are written together once every record has run.
      result = await withReportBatch(() =>
        inGroupOrder(
          event,
          async (record) => {
            const change = decodeQueueBody<Change>(record.body);
            // A mail request (outbox item) is rendered here and sent by the mail function. Mail requests and purge
            // jobs are rare: their modules load on the first one (dynamic imports), not at every cold start.
            if (isMailRequest(change)) {
              const { composeMail } = await import('#shared/domain/mail/compose.ts');
              await fileSigningReady();
              const request = (await complete(change)).newImage as unknown as MailRequestRecord;
              const mail = await composeMail(request);
              if (mail) mails.push(mail);
              // A reset for an email nobody has is no fault (anyone may ask): no warning to flood the logs with.
              else if (request.kind === 'password_reset')
                log.info('password reset mailed to nobody: no user has the email, or a newer request issued the link', {
                  eventId: change.id,
                });
              else log.warn('mail request dropped: its subject is gone', { eventId: change.id, pk: change.pk });
              return true;
            }
            // A purge job's chunk runs here; its recorded progress comes back as the next change.
            if (isPurgeJob(change)) {
              const { purgeChunk, purgeSwitch } = await import('#shared/domain/purge/service.ts');
              if (purgeSwitch.paused) log.warn('purge chunk skipped: paused', { pk: change.pk });
              else await purgeChunk({ pk: change.pk, sk: change.sk });
              return true;
            }
            // A contacts import's chunk runs here; its recorded progress comes back as the next change.
            if (isContactImport(change)) {
              const { importChunk } = await import('#shared/domain/contacts/import.ts');
              const job = (await complete(change)).newImage as { account_id: number; id: string } | undefined;
              if (job) await importChunk(job.account_id, job.id);
              return true;
            }
            deliveries.push(...(await dispatchChange(change, suspended, sends, mails)));
            return true;
          },
          (record, error) => log.error('dispatch failed', { messageId: record.messageId, error }),
        ),
      );
    } catch (error) {
      log.error('report figures not recorded', { error });
      return { batchItemFailures: event.Records.map((r) => ({ itemIdentifier: r.messageId })) };
    }
    try {
      if (deliveries.length) await enqueueDeliveries(deliveries);
      if (mails.length) await enqueueMails(mails);
      if (sends.length) await enqueueSends(sends);
    } catch (error) {
      log.error('deliveries or mails not queued', { error });
      return { batchItemFailures: event.Records.map((r) => ({ itemIdentifier: r.messageId })) };
    }
    // After the deliveries are out: at most once a minute per account and container (never throws).
    const due = [...searchSealCandidates];
    searchSealCandidates.clear();
    await Promise.all(due.map((accountId) => sealWhenDue(accountId)));
    return result;
  });
