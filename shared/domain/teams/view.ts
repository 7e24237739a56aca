import type { TeamRecord } from '#shared/model/teams.ts';

/** Team JSON (Chatwoot `_team.json.jbuilder`); `is_member`: the caller belongs to the team. */
export const teamJson = (t: TeamRecord, isMember: boolean) => ({
  id: t.id,
  name: t.name,
  description: t.description,
  allow_auto_assign: t.allow_auto_assign,
  account_id: t.account_id,
  is_member: isMember,
});
