import { nextId } from '#shared/db/ids.ts';
import * as repo from '#shared/db/repositories/custom-filters.ts';
import { retryStale } from '#shared/db/repositories/versioned.ts';
import type { Actor } from '#shared/model/actor.ts';
import { forbidden, notFound, unprocessable } from '#shared/errors.ts';
import type { CustomFilterRecord, FilterType } from '#shared/model/custom-filters.ts';
import type { CustomFilterUpdate, NewCustomFilter } from './schemas.ts';
import { customFilterJson } from './view.ts';

/** Chatwoot's per-user, per-account limit. */
export const MAX_FILTERS_PER_USER = 1000;

const iso = () => new Date().toISOString();

/** Filters belong to users; bot tokens never reach these routes, this keeps the types honest. */
function ownerOf(actor: Actor): number {
  if (actor.type !== 'user') throw forbidden();
  return actor.user.id;
}

/** Another user's filter answers like an absent one. */
async function requireFilter(accountId: number, actor: Actor, id: number, consistent = false): Promise<CustomFilterRecord> {
  const f = await repo.getCustomFilter(accountId, ownerOf(actor), id, consistent);
  if (!f) throw notFound('Custom filter');
  return f;
}

export async function listCustomFilters(accountId: number, actor: Actor, filterType: FilterType) {
  return (await repo.listCustomFilters(accountId, ownerOf(actor), filterType)).map(customFilterJson);
}

export async function showCustomFilter(accountId: number, actor: Actor, id: number) {
  return customFilterJson(await requireFilter(accountId, actor, id));
}

export async function createCustomFilter(accountId: number, actor: Actor, input: NewCustomFilter) {
  const t = iso();
  const filter: CustomFilterRecord = {
    id: await nextId('custom_filter'),
    account_id: accountId,
    user_id: ownerOf(actor),
    name: input.name,
    filter_type: input.filter_type ?? 'conversation',
    query: input.query ?? {},
    created_at: t,
    updated_at: t,
    version: 1,
  };
  await repo.createCustomFilter(filter, MAX_FILTERS_PER_USER, () =>
    unprocessable([
      {
        field: '',
        message: `Account Limit reached. The maximum number of allowed custom filters for a user per account is ${MAX_FILTERS_PER_USER}.`,
        code: 'limit_reached',
      },
    ]),
  );
  return customFilterJson(filter);
}

export async function updateCustomFilter(accountId: number, actor: Actor, id: number, input: CustomFilterUpdate) {
  // Every field is replaced as sent (the last writer wins): applied on the stored item, no read.
  const set = {
    name: input.name ?? undefined,
    filter_type: input.filter_type ?? undefined,
    query: input.query ?? undefined,
    updated_at: iso(),
  };
  const saved = await repo.changeCustomFilterAttributes(accountId, ownerOf(actor), id, set);
  if (!saved) throw notFound('Custom filter');
  return customFilterJson(saved);
}

/** Contract endpoint 6 (docs/contract.md#endpoints): Chatwoot answers 204 without a body. */
export async function deleteCustomFilter(accountId: number, actor: Actor, id: number) {
  await retryStale(async (consistent) => repo.deleteCustomFilter(await requireFilter(accountId, actor, id, consistent)));
}
