import { getContact } from '#shared/db/repositories/contacts.ts';
import { getInbox } from '#shared/db/repositories/inboxes.ts';
import { listHooks } from '#shared/db/repositories/integration-hooks.ts';
import { listLabels } from '#shared/db/repositories/labels.ts';
import { listMessages } from '#shared/db/repositories/messages.ts';
import type { Actor } from '#shared/model/actor.ts';
import { unprocessable } from '#shared/errors.ts';
import { visibleConversation } from '../conversations/access.ts';
import type { AccountRecord } from '#shared/model/identity.ts';
import { complete, type ChatMessage } from './openai.ts';
import * as prompts from './prompts.ts';
import type { ConversationTaskRequest, FollowUpContext, FollowUpRequest, RewriteRequest } from './schemas.ts';
import { CHAR_BUDGET, dialogue, exchange, exchangeOf, transcript } from './transcript.ts';

// Captain's editor tasks (Chatwoot's Captain::*Service behind `captain/tasks/*`): rewrite a draft, summarise
// a conversation, suggest a reply or labels, and refine any of those in follow-ups. The key is the account's
// OpenAI integration's, as Chatwoot's `captain_api_key`. A task that names a conversation answers 404 unless
// the caller may see it, also where the task does not read it (a tone rewrite, a follow-up).

export interface TaskResult {
  message: string | null;
  follow_up_context?: FollowUpContext;
}

const REPLY_MAX_TOKENS = 1000;

async function apiKey(accountId: number): Promise<string> {
  const hook = (await listHooks(accountId)).find((h) => h.app_id === 'openai' && h.status === 'enabled');
  const key = hook?.settings.api_key;
  if (typeof key === 'string' && key) return key;
  throw unprocessable([{ field: '', message: 'Captain needs the OpenAI integration: add its API key first', code: 'not_configured' }]);
}

/** The answer, with what a follow-up needs to refine it (every task but the label suggestion). */
async function run(key: string, event: FollowUpContext['event_name'], messages: ChatMessage[], maxTokens?: number): Promise<TaskResult> {
  const message = await complete(key, messages, maxTokens);
  const asked = [...messages].reverse().find((m) => m.role === 'user')!.content;
  return { message, follow_up_context: { event_name: event, original_context: asked, last_response: message, conversation_history: [] } };
}

/** The conversation a task names, if it names one (404 unless the caller may see it). */
const namedConversation = (account: AccountRecord, actor: Actor, displayId: number | null | undefined) =>
  displayId ? visibleConversation(account.id, actor, displayId) : Promise.resolve(undefined);

export async function rewrite(account: AccountRecord, actor: Actor, input: RewriteRequest): Promise<TaskResult> {
  // The key first: without one nothing else is read.
  const key = await apiKey(account.id);
  const op = input.operation;
  const c = await namedConversation(account, actor, input.conversation_display_id);
  if (op === 'improve') {
    const context = c ? transcript(c, ...(await Promise.all([exchange(c), getContact(account.id, c.contact_id)]))) : '(no conversation)';
    return run(key, op, [
      { role: 'system', content: prompts.improvePrompt(context) },
      { role: 'user', content: input.content },
    ]);
  }
  const system = op === 'fix_spelling_grammar' ? prompts.FIX_SPELLING_GRAMMAR : prompts.tonePrompt(op);
  return run(key, op, [
    { role: 'system', content: system },
    { role: 'user', content: input.content },
  ]);
}

export async function summarize(account: AccountRecord, actor: Actor, input: ConversationTaskRequest): Promise<TaskResult> {
  const key = await apiKey(account.id);
  const c = await visibleConversation(account.id, actor, input.conversation_display_id);
  return run(key, 'summarize', [
    { role: 'system', content: prompts.SUMMARY },
    { role: 'user', content: transcript(c, await exchange(c)) },
  ]);
}

export async function replySuggestion(account: AccountRecord, actor: Actor, input: ConversationTaskRequest): Promise<TaskResult> {
  const key = await apiKey(account.id);
  const c = await visibleConversation(account.id, actor, input.conversation_display_id);
  const [inbox, messages] = await Promise.all([getInbox(account.id, c.inbox_id), exchange(c)]);
  const user = actor.type === 'user' ? actor.user : undefined;
  const system = prompts.replyPrompt(
    inbox?.channel_type ?? 'chat',
    user?.display_name || user?.name || 'the agent',
    user?.message_signature || null,
  );
  return run(
    key,
    'reply_suggestion',
    [
      { role: 'system', content: system },
      { role: 'user', content: transcript(c, messages) },
    ],
    REPLY_MAX_TOKENS,
  );
}

/**
 * Labels for a conversation worth labelling (Chatwoot's rule: at least three incoming messages, at most
 * 100 in all, and past 20 the last one incoming), from the account's labels; `null` otherwise.
 */
export async function labelSuggestion(account: AccountRecord, actor: Actor, input: ConversationTaskRequest): Promise<TaskResult> {
  const key = await apiKey(account.id);
  const c = await visibleConversation(account.id, actor, input.conversation_display_id);
  const newest = await listMessages(account.id, c.id, { limit: 101 });
  const incoming = newest.filter((m) => m.message_type === 0).length;
  const last = newest[newest.length - 1];
  if (incoming < 3 || newest.length > 100 || (newest.length > 20 && last?.message_type !== 0)) return { message: null };
  const labels = (await listLabels(account.id)).map((l) => l.title).join(', ');
  // At most 100 messages: `newest` is the whole conversation.
  const messages = exchangeOf(newest, Math.max(0, CHAR_BUDGET - labels.length));
  if (!labels || !messages.length) return { message: null };
  const text = `Messages:\n${dialogue(messages)}\nLabels:\n${labels}`;
  const answer = await complete(key, [
    { role: 'system', content: prompts.LABEL_SUGGESTION },
    { role: 'user', content: text },
  ]);
  return { message: answer.replace(/^\s*labels?:\s*/i, '') };
}

/** A further turn on an earlier answer; the context comes back with this exchange added. */
export async function followUp(account: AccountRecord, actor: Actor, input: FollowUpRequest): Promise<TaskResult> {
  const ctx = input.follow_up_context;
  const history = ctx.conversation_history ?? [];
  const key = await apiKey(account.id);
  await namedConversation(account, actor, input.conversation_display_id);
  const message = await complete(key, [
    { role: 'system', content: prompts.followUpPrompt(ctx.event_name) },
    { role: 'user', content: ctx.original_context },
    { role: 'assistant', content: ctx.last_response },
    ...history,
    { role: 'user', content: input.message },
  ]);
  return {
    message,
    follow_up_context: {
      event_name: ctx.event_name,
      original_context: ctx.original_context,
      last_response: message,
      conversation_history: [...history, { role: 'user', content: input.message }, { role: 'assistant', content: message }],
      channel_type: ctx.channel_type ?? null,
    },
  };
}
