import { getAccountUser } from '#shared/db/repositories/identity.ts';
import { getTeam } from '#shared/db/repositories/teams.ts';
import type { Actor } from '#shared/model/actor.ts';
import { ServiceError, invalidField } from '#shared/errors.ts';
import { visibleConversation } from '../conversations/access.ts';
import { applyLabels, assignConversation, changeStatus } from '../conversations/service.ts';
import type { AccountRecord } from '#shared/model/identity.ts';
import type { BulkAction } from './schemas.ts';

// `POST /bulk_actions` (Chatwoot's BulkActionsJob, done within the request): each listed conversation
// the caller may see gets the label changes, then the status, assignee and team. Ids the caller cannot
// see are skipped, as absent ones are.

const PARALLEL = 5;

async function applyTo(account: AccountRecord, actor: Actor, displayId: number, input: BulkAction): Promise<void> {
  const fresh = () => visibleConversation(account.id, actor, displayId, true);
  let c = await fresh();
  const { add = [], remove = [] } = input.labels ?? {};
  if (add.length || remove.length) {
    c = await applyLabels(account, actor, c, [...c.labels.filter((l) => !remove.includes(l)), ...add.filter((l) => !remove.includes(l))]);
  }
  const fields = input.fields ?? {};
  if (fields.status) {
    c = (
      await changeStatus(account, actor, c, {
        status: fields.status,
        ...(input.snoozed_until !== undefined ? { snoozed_until: input.snoozed_until } : {}),
      })
    ).conversation;
  }
  if (fields.assignee_id !== undefined) {
    await assignConversation(account, actor, c, { assignee_id: fields.assignee_id });
    c = await fresh();
  }
  if (fields.team_id !== undefined) await assignConversation(account, actor, c, { team_id: fields.team_id });
}

export async function bulkAction(account: AccountRecord, actor: Actor, input: BulkAction): Promise<void> {
  const { assignee_id, team_id } = input.fields ?? {};
  // Checked before anything changes, as Chatwoot does, so a bad target changes nothing.
  if (assignee_id && !(await getAccountUser(account.id, assignee_id))) throw invalidField('fields.assignee_id', 'Invalid assignee_id');
  if (team_id && !(await getTeam(account.id, team_id))) throw invalidField('fields.team_id', 'Invalid team_id');
  const ids = [...new Set(input.ids)];
  for (let i = 0; i < ids.length; i += PARALLEL) {
    await Promise.all(
      ids.slice(i, i + PARALLEL).map((id) =>
        applyTo(account, actor, id, input).catch((err) => {
          if (err instanceof ServiceError && err.kind === 'not_found') return;
          throw err;
        }),
      ),
    );
  }
}
