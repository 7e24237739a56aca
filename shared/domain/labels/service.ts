import { nextId } from '#shared/db/ids.ts';
import * as repo from '#shared/db/repositories/labels.ts';
import { retryStale } from '#shared/db/repositories/versioned.ts';
import { notFound } from '#shared/errors.ts';
import { now } from '#shared/model/time.ts';
import type { LabelRecord } from '#shared/model/labels.ts';
import type { LabelUpdate, NewLabel } from './schemas.ts';
import { labelJson } from './view.ts';

const DEFAULT_COLOR = '#1f93ff';

async function requireLabel(accountId: number, id: number, consistent = false): Promise<LabelRecord> {
  const label = await repo.getLabel(accountId, id, consistent);
  if (!label) throw notFound('Label');
  return label;
}

/** Sorted by title, as Chatwoot's default scope does. */
export async function listLabels(accountId: number) {
  const labels = await repo.listLabels(accountId);
  labels.sort((a, b) => (a.title < b.title ? -1 : a.title > b.title ? 1 : 0));
  return { payload: labels.map(labelJson) };
}

export async function showLabel(accountId: number, id: number) {
  return labelJson(await requireLabel(accountId, id));
}

export async function createLabel(accountId: number, input: NewLabel) {
  const t = now();
  const label: LabelRecord = {
    id: await nextId('label'),
    account_id: accountId,
    title: input.title,
    description: input.description ?? null,
    color: input.color ?? DEFAULT_COLOR,
    show_on_sidebar: input.show_on_sidebar ?? false,
    created_at: t,
    updated_at: t,
    version: 1,
  };
  await repo.saveLabel(undefined, label);
  return labelJson(label);
}

export async function updateLabel(accountId: number, id: number, input: LabelUpdate) {
  return retryStale(async (consistent) => {
    const before = await requireLabel(accountId, id, consistent);
    if (input.title === undefined || input.title === before.title) {
      // The rest is replaced as sent (the last writer wins), on the stored item.
      const set = {
        description: input.description,
        color: input.color ?? undefined,
        show_on_sidebar: input.show_on_sidebar ?? undefined,
        updated_at: now(),
      };
      const saved = await repo.changeLabelAttributes(accountId, id, { set });
      if (!saved) throw notFound('Label');
      return labelJson(saved);
    }
    const after: LabelRecord = {
      ...before,
      title: input.title ?? before.title,
      description: input.description !== undefined ? input.description : before.description,
      color: input.color ?? before.color,
      show_on_sidebar: input.show_on_sidebar ?? before.show_on_sidebar,
      updated_at: now(),
      version: before.version + 1,
    };
    await repo.saveLabel(before, after);
    return labelJson(after);
  });
}

export async function deleteLabel(accountId: number, id: number): Promise<void> {
  await retryStale(async (consistent) => repo.deleteLabel(await requireLabel(accountId, id, consistent)));
}
