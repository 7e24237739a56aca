import { nextId } from '#shared/db/ids.ts';
import * as repo from '#shared/db/repositories/canned-responses.ts';
import { retryStale } from '#shared/db/repositories/versioned.ts';
import { notFound } from '#shared/errors.ts';
import type { CannedResponseRecord } from '#shared/model/canned-responses.ts';
import type { CannedResponseUpdate, NewCannedResponse } from './schemas.ts';
import { cannedResponseJson } from './view.ts';

const iso = () => new Date().toISOString();

async function requireCanned(accountId: number, id: number, consistent = false) {
  const c = await repo.getCannedResponse(accountId, id, consistent);
  if (!c) throw notFound('Canned response');
  return c;
}

/**
 * Chatwoot's rank of a match (higher first): short code starting with the term, short code containing it,
 * content containing it; case-insensitive. 0 = no match.
 */
export function searchRank(c: Pick<CannedResponseRecord, 'short_code' | 'content'>, term: string): number {
  const t = term.toLowerCase();
  const code = c.short_code.toLowerCase();
  if (code.startsWith(t)) return 1;
  if (code.includes(t)) return 0.5;
  if (c.content.toLowerCase().includes(t)) return 0.2;
  return 0;
}

/** A bare array, like Chatwoot; with `search`, the matches best first (ties by id). */
export async function listCannedResponses(accountId: number, search: string | undefined) {
  const all = await repo.listCannedResponses(accountId);
  if (search === undefined) return all.map(cannedResponseJson);
  return all
    .map((c) => ({ c, rank: searchRank(c, search) }))
    .filter((r) => r.rank > 0)
    .sort((a, b) => b.rank - a.rank || a.c.id - b.c.id)
    .map((r) => cannedResponseJson(r.c));
}

export async function createCannedResponse(accountId: number, input: NewCannedResponse) {
  const t = iso();
  const c: CannedResponseRecord = {
    id: await nextId('canned_response'),
    account_id: accountId,
    short_code: input.short_code,
    content: input.content,
    created_at: t,
    updated_at: t,
    version: 1,
  };
  await repo.saveCannedResponse(undefined, c);
  return cannedResponseJson(c);
}

export async function updateCannedResponse(accountId: number, id: number, input: CannedResponseUpdate) {
  return retryStale(async (consistent) => {
    const before = await requireCanned(accountId, id, consistent);
    const after: CannedResponseRecord = {
      ...before,
      short_code: input.short_code ?? before.short_code,
      content: input.content ?? before.content,
      updated_at: iso(),
      version: before.version + 1,
    };
    await repo.saveCannedResponse(before, after);
    return cannedResponseJson(after);
  });
}

export async function deleteCannedResponse(accountId: number, id: number): Promise<void> {
  await retryStale(async (consistent) => repo.deleteCannedResponse(await requireCanned(accountId, id, consistent)));
}
