import { nextId } from '#shared/db/ids.ts';
import * as repo from '#shared/db/repositories/macros.ts';
import { retryStale } from '#shared/db/repositories/versioned.ts';
import type { Actor } from '#shared/model/actor.ts';
import { forbidden, notFound, unprocessable } from '#shared/errors.ts';
import { runConversationAction } from '../automation/actions.ts';
import { checkRule } from '../automation/catalog.ts';
import type { Action } from '#shared/model/automation.ts';
import { agentsJson } from '../agents/view.ts';
import { visibleConversation } from '../conversations/access.ts';
import type { AccountRecord } from '#shared/model/identity.ts';
import { now } from '#shared/model/time.ts';
import type { MacroRecord, MacroVisibility } from '#shared/model/macros.ts';
import type { MacroUpdate, NewMacro } from './schemas.ts';

// Macros (Chatwoot's MacrosController and MacroPolicy): saved lists of conversation actions from the
// automation catalog that an agent runs on chosen conversations. Personal macros belong to their author;
// global ones are shared, and only administrators make them (an agent's macro is always personal).

type UserActor = Extract<Actor, { type: 'user' }>;

const isAdmin = (a: UserActor) => a.role === 'administrator';

/** Actions checked against the automation catalog, in their stored form, or 422 naming each path. */
function checkedActions(actions: unknown[]): Action[] {
  const out = checkRule(undefined, [], actions);
  const problems = [...out.problems];
  out.actions.forEach((a, i) => {
    // A macro runs inside the request, where there is no delivery queue to hand a webhook to.
    if (a?.action_name === 'send_webhook_event') {
      problems.push({
        field: `actions[${i}].action_name`,
        message: 'send_webhook_event is available to automation rules only',
        code: 'invalid',
      });
    }
  });
  if (problems.length) throw unprocessable(problems);
  return out.actions;
}

const visibilityFor = (actor: UserActor, asked: MacroVisibility | undefined, current: MacroVisibility = 'personal') =>
  isAdmin(actor) ? (asked ?? current) : 'personal';

const mayUse = (actor: UserActor, m: MacroRecord) => m.visibility === 'global' || m.created_by_id === actor.user.id;
const mayChange = (actor: UserActor, m: MacroRecord) => m.created_by_id === actor.user.id || (isAdmin(actor) && m.visibility === 'global');

async function macroJson(m: MacroRecord) {
  const people = await agentsJson(m.account_id, [m.created_by_id, m.updated_by_id]);
  const person = (id: number) => people.find((p) => p.id === id);
  return {
    id: m.id,
    name: m.name,
    visibility: m.visibility,
    ...(person(m.created_by_id) ? { created_by: person(m.created_by_id) } : {}),
    ...(person(m.updated_by_id) ? { updated_by: person(m.updated_by_id) } : {}),
    account_id: m.account_id,
    actions: m.actions,
  };
}

/** A macro the actor may use (another user's personal macro looks absent), or 404. */
async function usable(accountId: number, actor: UserActor, id: number, consistent = false) {
  const m = await repo.getMacro(accountId, id, consistent);
  if (!m || !mayUse(actor, m)) throw notFound('Macro');
  return m;
}

function userActor(actor: Actor): UserActor {
  if (actor.type !== 'user') throw forbidden('Agent bot tokens cannot call this endpoint');
  return actor;
}

/** Global macros and the caller's own personal ones. */
export async function listMacros(accountId: number, actor: Actor) {
  const a = userActor(actor);
  const macros = (await repo.listMacros(accountId)).filter((m) => mayUse(a, m));
  return { payload: await Promise.all(macros.map(macroJson)) };
}

export async function showMacro(accountId: number, actor: Actor, id: number) {
  return { payload: await macroJson(await usable(accountId, userActor(actor), id)) };
}

export async function createMacro(account: AccountRecord, actor: Actor, input: NewMacro) {
  const a = userActor(actor);
  const actions = checkedActions(input.actions);
  const t = now();
  const macro: MacroRecord = {
    id: await nextId('macro'),
    account_id: account.id,
    name: input.name,
    visibility: visibilityFor(a, input.visibility),
    created_by_id: a.user.id,
    updated_by_id: a.user.id,
    actions,
    created_at: t,
    updated_at: t,
    version: 1,
  };
  await repo.saveMacro(undefined, macro);
  return { payload: await macroJson(macro) };
}

export async function updateMacro(account: AccountRecord, actor: Actor, id: number, input: MacroUpdate) {
  const a = userActor(actor);
  return retryStale(async (consistent) => {
    const before = await usable(account.id, a, id, consistent);
    if (!mayChange(a, before)) throw forbidden('You are not authorized to do this action');
    const after: MacroRecord = {
      ...before,
      name: input.name ?? before.name,
      visibility: visibilityFor(a, input.visibility, before.visibility),
      actions: input.actions ? checkedActions(input.actions) : before.actions,
      updated_by_id: a.user.id,
      updated_at: now(),
      version: before.version + 1,
    };
    await repo.saveMacro(before, after);
    return { payload: await macroJson(after) };
  });
}

export async function deleteMacro(account: AccountRecord, actor: Actor, id: number): Promise<void> {
  const a = userActor(actor);
  // A concurrent change or delete of the macro is a lost race: read again (a delete that lost is then 404).
  await retryStale(async () => {
    const m = await usable(account.id, a, id, true);
    if (!mayChange(a, m)) throw forbidden('You are not authorized to do this action');
    await repo.deleteMacro(m);
  });
}

/**
 * `POST macros/{id}/execute {conversation_ids}`: every action on every conversation, in order, by the same
 * runner as automation rules, with the agent as the actor (events, activity messages and webhooks name
 * them). Every conversation must be one the agent can see, checked before anything runs.
 */
export async function executeMacro(account: AccountRecord, actor: Actor, id: number, conversationIds: number[]): Promise<void> {
  const a = userActor(actor);
  const macro = await usable(account.id, a, id);
  const ids = [...new Set(conversationIds)];
  await Promise.all(ids.map((displayId) => visibleConversation(account.id, a, displayId)));
  for (const displayId of ids) {
    for (const action of macro.actions) {
      await runConversationAction(account, a, displayId, action, () => undefined);
    }
  }
}
