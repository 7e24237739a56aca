import { nextId } from '#shared/db/ids.ts';
import { getInbox, getInboxes } from '#shared/db/repositories/inboxes.ts';
import * as repo from '#shared/db/repositories/integration-hooks.ts';
import { retryStale } from '#shared/db/repositories/versioned.ts';
import { listWebhooks } from '#shared/db/repositories/webhooks.ts';
import type { Actor } from '#shared/model/actor.ts';
import { invalidField, notFound } from '#shared/errors.ts';
import { parseOrThrow } from '#shared/validate.ts';
import type { AccountRecord } from '#shared/model/identity.ts';
import { now } from '#shared/model/time.ts';
import { APPS, appById, type AppDefinition } from './catalog.ts';
import type { HookRecord } from '#shared/model/integrations.ts';
import type { HookUpdate, NewHook } from './schemas.ts';

const isAdmin = (actor: Actor) => actor.type === 'user' && actor.role === 'administrator';

function visibleSettings(app: AppDefinition | undefined, settings: Record<string, unknown>) {
  const keys = app?.visible_properties ?? [];
  return Object.fromEntries(Object.entries(settings).filter(([k]) => keys.includes(k)));
}

/** Chatwoot's `_hook.json.jbuilder`: settings (the safe keys) and reference id only for administrators. */
function hookJson(h: HookRecord, inboxNames: Map<number, string>, admin: boolean) {
  return {
    id: h.id,
    app_id: h.app_id,
    status: h.status === 'enabled',
    inbox: h.inbox_id !== null ? { id: h.inbox_id, name: inboxNames.get(h.inbox_id) ?? null } : null,
    account_id: h.account_id,
    hook_type: h.hook_type,
    ...(admin ? { settings: visibleSettings(appById(h.app_id), h.settings), reference_id: h.reference_id } : {}),
  };
}

async function inboxNamesOf(accountId: number, hooks: HookRecord[]) {
  const ids = [...new Set(hooks.flatMap((h) => (h.inbox_id !== null ? [h.inbox_id] : [])))];
  const inboxes = await getInboxes(accountId, ids);
  return new Map(ids.flatMap((id, i) => (inboxes[i] ? [[id, inboxes[i]!.name] as const] : [])));
}

async function present(accountId: number, actor: Actor, h: HookRecord) {
  return hookJson(h, await inboxNamesOf(accountId, [h]), isAdmin(actor));
}

/** `GET /integrations/apps`: every app, whether the account uses it, and its hooks. */
export async function listApps(account: AccountRecord, actor: Actor) {
  const [hooks, webhooks] = await Promise.all([repo.listHooks(account.id), listWebhooks(account.id)]);
  const names = await inboxNamesOf(account.id, hooks);
  const admin = isAdmin(actor);
  return {
    payload: APPS.map((app) => {
      const own = hooks.filter((h) => h.app_id === app.id);
      return {
        id: app.id,
        name: app.name,
        description: app.description,
        enabled: app.id === 'webhook' ? webhooks.length > 0 : own.length > 0,
        ...(admin
          ? {
              hook_type: app.hook_type,
              allow_multiple_hooks: app.allow_multiple_hooks,
              action: app.action ?? null,
              button: app.action ?? null,
            }
          : {}),
        hooks: own.map((h) => hookJson(h, names, admin)),
      };
    }),
  };
}

function settingsFor(app: AppDefinition, settings: Record<string, unknown> | null | undefined) {
  const value = settings ?? {};
  return app.settings ? parseOrThrow(app.settings, value, 'settings') : value;
}

/** `POST /integrations/hooks` (administrators). */
export async function createHook(account: AccountRecord, actor: Actor, input: NewHook) {
  const app = appById(input.app_id);
  if (!app) throw invalidField('app_id', 'is not a known integration app');
  if (app.managedElsewhere) throw invalidField('app_id', `is configured through its own API, not as a hook`);
  if (app.hook_type === 'inbox') {
    if (!input.inbox_id) throw invalidField('inbox_id', 'is required for this app', 'required');
    if (!(await getInbox(account.id, input.inbox_id))) throw notFound('Inbox');
  }
  const t = now();
  const hook: HookRecord = {
    id: await nextId('integration_hook'),
    account_id: account.id,
    app_id: app.id,
    inbox_id: app.hook_type === 'inbox' ? input.inbox_id! : null,
    hook_type: app.hook_type,
    status: input.status ?? 'enabled',
    settings: settingsFor(app, input.settings),
    reference_id: null,
    created_at: t,
    updated_at: t,
    version: 1,
  };
  await repo.createHook(hook, !app.allow_multiple_hooks);
  return present(account.id, actor, hook);
}

async function requireHook(accountId: number, id: number, consistent = false) {
  const h = await repo.getHook(accountId, id, consistent);
  if (!h) throw notFound('Hook');
  return h;
}

/** `PATCH /integrations/hooks/{id}`: status and settings only (app, inbox and type stay). */
export async function updateHook(account: AccountRecord, actor: Actor, id: number, input: HookUpdate) {
  const after = await retryStale(async (consistent) => {
    const before = await requireHook(account.id, id, consistent);
    const app = appById(before.app_id);
    const next: HookRecord = {
      ...before,
      status: input.status ?? before.status,
      settings: input.settings !== undefined && app ? settingsFor(app, input.settings) : before.settings,
      updated_at: now(),
      version: before.version + 1,
    };
    await repo.updateHook(before, next);
    return next;
  });
  return present(account.id, actor, after);
}

export async function deleteHook(account: AccountRecord, id: number): Promise<void> {
  await retryStale(async (consistent) => repo.deleteHook(await requireHook(account.id, id, consistent)));
}
