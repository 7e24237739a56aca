import { join } from 'node:path';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { routes, type Method } from '../../../infra/routes.ts';
import { db, tableName } from '#shared/db/client.ts';
import { seedAccount, type SeededAccount } from '../../support/runtime.ts';
import { untilState } from '../../support/until.ts';
import { world } from '../conversations/fixtures.ts';

// Generated from the route table: a row added there is covered here the moment it exists. Every account
// route is called by another account's administrator (on the victim's account, and on the caller's own
// account with the victim's ids), and every administrator-only route (read from the handler's `access`)
// by an agent; none may answer anything but a refusal, and the victim's data must not change.

const ROOT = join(import.meta.dirname, '../../..');
// v1 and v2 (reports) account routes.
const ACCOUNT_PREFIX = /^\/api\/v[12]\/accounts\/\{account_id\}/;
const accountRoutes = routes
  .filter((r) => ACCOUNT_PREFIX.test(r.path))
  .flatMap((r) => (Array.isArray(r.method) ? r.method : [r.method]).map((method: Method) => ({ ...r, method })));

const MISSING = 999_999_999;

type Item = Record<string, unknown>;
async function accountItems(accountId: number): Promise<string[]> {
  const out: string[] = [];
  let start: Item | undefined;
  // The log of webhook delivery attempts (AP170) is the pipeline's record of its own retries to the
  // victim's unreachable webhook, written on its own schedule: not data a request can change.
  const log = (i: Item) => typeof i.pk === 'string' && i.pk.startsWith('WHDELIVERIES#');
  const mine = (i: Item) =>
    !log(i) &&
    (i.account_id === accountId ||
      [i.pk, i.gsi1pk].some((k) => typeof k === 'string' && (k.includes(`#${accountId}#`) || k.endsWith(`#${accountId}`))));
  do {
    const page = await db().send(new ScanCommand({ TableName: tableName(), ExclusiveStartKey: start, ConsistentRead: true }));
    for (const i of page.Items ?? []) if (mine(i)) out.push(JSON.stringify(i, Object.keys(i).sort()));
    start = page.LastEvaluatedKey;
  } while (start);
  return out.sort();
}

describe('authorization of every account route, from the route table', () => {
  let victim: SeededAccount;
  let attacker: SeededAccount;
  let ids: Record<string, number>;

  beforeAll(async () => {
    const w = await world();
    victim = w.s;
    attacker = await seedAccount();
    const a = victim.admin.api;
    const post = async (path: string, body: unknown) => {
      const res = await a.post(`${victim.base}${path}`, body);
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
      return res.body as Record<string, any>;
    };
    // Two conversations, so the victim's display ids do not exist in the attacker's (empty) account.
    await post('/conversations', { inbox_id: w.inbox.id, contact_id: w.contact.id });
    const conv = await post('/conversations', { inbox_id: w.inbox.id, contact_id: w.contact.id });
    const msg = await post(`/conversations/${conv.id}/messages`, { content: 'hello' });
    const hook = await post('/webhooks', { url: `https://hooks.example.com/${victim.accountId}` });
    const label = await post('/labels', { title: `l${victim.accountId}` });
    const team = await post('/teams', { name: `t${victim.accountId}` });
    const canned = await post('/canned_responses', { short_code: `c${victim.accountId}`, content: 'x' });
    // The pipeline's report stage writes the victim's aggregates after these calls; wait for it, so that
    // the comparisons below see only what the refused calls would change.
    const t = Math.floor(Date.now() / 1000);
    await untilState(
      () => a.get(`/api/v2/accounts/${victim.accountId}/reports/summary?since=${t - 3600}&until=${t + 3600}`),
      (r) => r.body?.conversations_count === 2 && r.body?.outgoing_messages_count === 1,
    );
    await untilState(
      () => a.get(`${victim.base}/conversations/${conv.id}/reporting_events`),
      (r) => (r.body?.payload ?? []).some((e: { name: string }) => e.name === 'first_response'),
    );
    ids = {
      inboxes: w.inbox.id,
      inbox_id: w.inbox.id,
      contacts: w.contact.id,
      conversations: conv.id,
      conversation_id: conv.id,
      messages: msg.id,
      message_id: msg.id,
      webhooks: (hook.payload?.webhook ?? hook).id,
      labels: label.id,
      teams: team.id,
      team_id: team.id,
      canned_responses: canned.id,
      agents: victim.agent.id,
      account_users: victim.agent.id,
    };
  });

  /** The route's path for `accountId`, every other parameter an id of the victim's (or one nobody has). */
  const pathOf = (path: string, accountId: number) =>
    path.replace(/\{(\w+)\}/g, (_m, name: string, offset: number) => {
      if (name === 'account_id') return String(accountId);
      if (name !== 'id') return String(ids[name] ?? MISSING);
      const segment = path.slice(0, offset).split('/').filter(Boolean).pop()!;
      return String(ids[segment] ?? MISSING);
    });

  it('covers every account route of the table', () => {
    expect(accountRoutes.length).toBeGreaterThan(100);
  });

  it("another account's administrator is refused on every account route, and the victim's data does not change", async () => {
    const before = await accountItems(victim.accountId);
    const wrong: string[] = [];
    for (const r of accountRoutes) {
      // On the victim's account: not a member, so the account does not exist for the caller.
      const res = await attacker.admin.api.request(r.method, pathOf(r.path, victim.accountId), r.method === 'GET' ? undefined : {});
      if (![401, 403, 404].includes(res.status))
        wrong.push(`${r.method} ${r.path} on the victim's account: ${res.status} ${res.text.slice(0, 120)}`);
      // On the caller's own account with the victim's ids: those objects are not the caller's.
      if (/\{(?!account_id)\w+\}/.test(r.path)) {
        const own = await attacker.admin.api.request(r.method, pathOf(r.path, attacker.accountId), r.method === 'GET' ? undefined : {});
        if (own.status !== 404 && own.status !== 422)
          wrong.push(`${r.method} ${r.path} with the victim's ids: ${own.status} ${own.text.slice(0, 120)}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(await accountItems(victim.accountId)).toEqual(before);
  });

  it('an agent is refused (403) on every administrator-only route, and nothing changes', async () => {
    const adminOnly: typeof accountRoutes = [];
    for (const r of accountRoutes) {
      const handler = (await import(join(ROOT, r.handler))).handler as { access?: string };
      expect(handler.access, `${r.handler} exposes its access`).toMatch(/^(administrator|member)$/);
      if (handler.access === 'administrator') adminOnly.push(r);
    }
    expect(adminOnly.length).toBeGreaterThan(20);
    const before = await accountItems(victim.accountId);
    const wrong: string[] = [];
    for (const r of adminOnly) {
      const res = await victim.agent.api.request(r.method, pathOf(r.path, victim.accountId), r.method === 'GET' ? undefined : {});
      if (res.status !== 403) wrong.push(`${r.method} ${r.path}: ${res.status} ${res.text.slice(0, 120)}`);
    }
    expect(wrong).toEqual([]);
    expect(await accountItems(victim.accountId)).toEqual(before);
  });
});
