import { nextId } from '#shared/db/ids.ts';
import * as repo from '#shared/db/repositories/sla.ts';
import { retryStale } from '#shared/db/repositories/versioned.ts';
import { notFound } from '#shared/errors.ts';
import { now } from '#shared/model/time.ts';
import type { SlaPolicyRecord } from '#shared/model/sla.ts';
import type { NewSlaPolicy, SlaPolicyUpdate } from './schemas.ts';
import { slaPolicyJson } from './view.ts';

// SLA policies (Chatwoot's SlaPoliciesController): agents list and show them, administrators write them. Answers
// are wrapped in `payload`, as Chatwoot's views are.

async function requirePolicy(accountId: number, id: number, consistent = false): Promise<SlaPolicyRecord> {
  const p = await repo.getSlaPolicy(accountId, id, consistent);
  if (!p) throw notFound('SlaPolicy');
  return p;
}

export async function listSlaPolicies(accountId: number) {
  return { payload: (await repo.listSlaPolicies(accountId)).map(slaPolicyJson) };
}

export async function showSlaPolicy(accountId: number, id: number) {
  return { payload: slaPolicyJson(await requirePolicy(accountId, id)) };
}

export async function createSlaPolicy(accountId: number, input: NewSlaPolicy) {
  const t = now();
  const policy: SlaPolicyRecord = {
    id: await nextId('sla_policy'),
    account_id: accountId,
    name: input.name,
    description: input.description ?? null,
    first_response_time_threshold: input.first_response_time_threshold ?? null,
    next_response_time_threshold: input.next_response_time_threshold ?? null,
    resolution_time_threshold: input.resolution_time_threshold ?? null,
    only_during_business_hours: input.only_during_business_hours ?? false,
    created_at: t,
    updated_at: t,
    version: 1,
  };
  await repo.saveSlaPolicy(undefined, policy);
  return { payload: slaPolicyJson(policy) };
}

/** Fields sent replace the stored ones (null clears a threshold); fields not sent stay. */
export async function updateSlaPolicy(accountId: number, id: number, input: SlaPolicyUpdate) {
  return retryStale(async (consistent) => {
    const before = await requirePolicy(accountId, id, consistent);
    const pick = <K extends keyof SlaPolicyUpdate>(k: K) => (input[k] !== undefined ? input[k] : before[k as keyof SlaPolicyRecord]);
    const after: SlaPolicyRecord = {
      ...before,
      name: input.name ?? before.name,
      description: pick('description') as string | null,
      first_response_time_threshold: pick('first_response_time_threshold') as number | null,
      next_response_time_threshold: pick('next_response_time_threshold') as number | null,
      resolution_time_threshold: pick('resolution_time_threshold') as number | null,
      only_during_business_hours: input.only_during_business_hours ?? before.only_during_business_hours,
      updated_at: now(),
      version: before.version + 1,
    };
    await repo.saveSlaPolicy(before, after);
    return { payload: slaPolicyJson(after) };
  });
}

/**
 * Chatwoot deletes the policy (and its applied SLAs, in a job). Here the policy goes; its applied SLAs stay with
 * their misses but are evaluated no further and leave applied_slas (docs/sla.md).
 */
export async function deleteSlaPolicy(accountId: number, id: number): Promise<void> {
  await retryStale(async (consistent) => repo.deleteSlaPolicy(await requirePolicy(accountId, id, consistent)));
}
