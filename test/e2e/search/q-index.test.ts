import { beforeAll, describe, expect, it } from 'vitest';
import { getSearchHead } from '#shared/db/repositories/search-index.ts';
import { GRAM_PARTS_MIN, SEAL_LAG_S, sealSearchIndex, type GramRule } from '#shared/search/index.ts';
import { seedAccount, type SeededAccount } from '../../support/runtime.ts';
import { untilState } from '../../support/until.ts';
import { addInboxMembers, newContact, newConversation, newInbox, newTeam, ok } from '../conversations/fixtures.ts';

// `q` through the index (shared/search): messages sealed into segments and messages still in the tail
// answer alike — case-insensitive, every status, substrings within words and phrases — a message is found
// by a search made right after its POST, counts follow assignments and deletions made after sealing,
// and agents see only their inboxes. Sealing is the function the pipeline runs, called here at once. Every
// answer holds with the segments' buckets of their own (small segments) and in the account's gram
// partitions (large ones, laid out so here by `gramMin: 1`).

const nowS = () => Math.floor(Date.now() / 1000);

/** Seals everything created before the current second (the pipeline seals what is older than SEAL_LAG_S). */
async function sealUpToNow(accountId: number, gram?: GramRule) {
  const before = nowS();
  await untilState(
    async () => nowS(),
    (t) => t > before,
  );
  const changed = await sealSearchIndex(accountId, { now: nowS() + SEAL_LAG_S, min: 1, gram });
  expect(changed).toBe(true);
}

describe.each([
  ['buckets of their own', undefined],
  ['gram partitions', { min: 1, docsPerPart: 0 }],
] as const)('q search over sealed segments (%s) and the tail', (_layout, gram) => {
  let s: SeededAccount;
  let inboxA: { id: number };
  let inboxB: { id: number };
  let team: { id: number };
  const c: Record<string, number> = {};

  const meta = async (api: SeededAccount['admin']['api'], q: string, extra = '') =>
    ok(await api.get(`${s.base}/conversations/meta?q=${encodeURIComponent(q)}${extra}`), `meta ${q}`).meta;
  const searchIds = async (api: SeededAccount['admin']['api'], q: string) =>
    (ok(await api.get(`${s.base}/conversations/search?q=${encodeURIComponent(q)}`), `search ${q}`).payload as { id: number }[])
      .map((x) => x.id)
      .sort((a, b) => a - b);
  const say = async (id: number, body: Record<string, unknown>) =>
    ok(await s.admin.api.post(`${s.base}/conversations/${id}/messages`, body), 'message');

  beforeAll(async () => {
    s = await seedAccount();
    [inboxA, inboxB] = await Promise.all([newInbox(s), newInbox(s)]);
    await addInboxMembers(s, inboxA.id, [s.agent.id]);
    team = await newTeam(s, [s.admin.id]);
    const contact = await newContact(s);
    const make = async (name: string, inbox: { id: number }, body: Record<string, unknown> = {}) => {
      c[name] = (await newConversation(s, { inbox_id: inbox.id, contact_id: contact.id, ...body })).id;
    };
    await make('open', inboxA, { assignee_id: s.agent.id });
    await make('resolved', inboxB, { status: 'resolved' });
    await make('pending', inboxA, { status: 'pending', team_id: team.id, assignee_id: s.admin.id });
    await make('plain', inboxA);
    await say(c.open, { content: 'I need a REFUND for order 4217', message_type: 'incoming' });
    await say(c.resolved, { content: 'Your refund was sent. Ünïcödé Ärger!' });
    await say(c.pending, { content: 'internal: ReFuNd approved', private: true });
    await say(c.plain, { content: 'refuse the fund, where is order 42' });
    await sealUpToNow(s.accountId, gram);
  });

  it('the sealed messages are in a segment, and the tail is empty', async () => {
    const head = await getSearchHead(s.accountId);
    expect(head.segments).toHaveLength(1);
    expect(head.segments[0].n).toBe(4);
    expect(head.segments[0].g).toBe(gram ? GRAM_PARTS_MIN : undefined);
    expect(head.watermark).toBeGreaterThan(0);
  });

  it('finds sealed messages case-insensitively, in every status, within words and across words', async () => {
    expect(await meta(s.admin.api, 'refund')).toEqual({ mine_count: 1, unassigned_count: 1, assigned_count: 2, all_count: 3 });
    expect(await searchIds(s.admin.api, 'REFUND')).toEqual([c.open, c.resolved, c.pending].sort((a, b) => a - b));
    expect(await searchIds(s.admin.api, 'efun')).toEqual([c.open, c.resolved, c.pending].sort((a, b) => a - b));
    // A phrase across words, and one whose trigrams are all present but not in a row ("refuse the fund").
    expect(await searchIds(s.admin.api, 'for order 42')).toEqual([c.open]);
    expect(await searchIds(s.admin.api, 'order 42')).toEqual([c.open, c.plain].sort((a, b) => a - b));
    expect(await searchIds(s.admin.api, 'se the fu')).toEqual([c.plain]);
    expect(await searchIds(s.admin.api, 'ünïcödé ä')).toEqual([c.resolved]);
    expect(await searchIds(s.admin.api, 'zzzz')).toEqual([]);
    // Shorter than a trigram: scanned, same meaning.
    expect(await searchIds(s.admin.api, 'Är')).toEqual([c.resolved]);
  });

  it('a message is found by the search made right after its POST, beside the sealed ones', async () => {
    await say(c.plain, { content: 'Late REFUND request', message_type: 'incoming' });
    expect(await meta(s.admin.api, 'refund')).toEqual({ mine_count: 1, unassigned_count: 2, assigned_count: 2, all_count: 4 });
    const found = ok(await s.admin.api.get(`${s.base}/conversations/search?q=late%20refund`), 'late').payload;
    expect(found.map((x: any) => x.id)).toEqual([c.plain]);
    expect(found[0].messages.map((m: any) => m.content)).toEqual(['Late REFUND request']);
    const ms = ok(await s.admin.api.get(`${s.base}/search/messages?q=refund`), 'messages').payload.messages;
    expect(ms.map((m: any) => m.content)).toEqual([
      'Late REFUND request',
      'internal: ReFuNd approved',
      'Your refund was sent. Ünïcödé Ärger!',
      'I need a REFUND for order 4217',
    ]);
  });

  it('agents count and find only their inboxes; team filters apply', async () => {
    expect(await meta(s.agent.api, 'refund')).toEqual({ mine_count: 1, unassigned_count: 1, assigned_count: 2, all_count: 3 });
    expect(await searchIds(s.agent.api, 'refund')).not.toContain(c.resolved);
    expect(await meta(s.admin.api, 'refund', `&team_id=${team.id}`)).toEqual({
      mine_count: 1,
      unassigned_count: 0,
      assigned_count: 1,
      all_count: 1,
    });
    expect(await meta(s.admin.api, 'refund', `&inbox_id=${inboxB.id}`)).toEqual({
      mine_count: 0,
      unassigned_count: 1,
      assigned_count: 0,
      all_count: 1,
    });
  });

  it('counts follow assignments and deletions made after sealing, and a second seal keeps every answer', async () => {
    ok(await s.admin.api.post(`${s.base}/conversations/${c.plain}/assignments`, { assignee_id: s.admin.id }), 'assign');
    expect(await meta(s.admin.api, 'refund')).toEqual({ mine_count: 2, unassigned_count: 1, assigned_count: 3, all_count: 4 });
    ok(await s.admin.api.delete(`${s.base}/conversations/${c.resolved}`), 'delete');
    expect(await meta(s.admin.api, 'refund')).toEqual({ mine_count: 2, unassigned_count: 0, assigned_count: 3, all_count: 3 });
    await sealUpToNow(s.accountId, gram);
    // The first segment holds at most MERGE_RATIO times the new one: they merge into one holding both.
    const head = await getSearchHead(s.accountId);
    expect(head.segments).toHaveLength(1);
    expect(head.segments[0].n).toBeGreaterThan(4);
    expect(head.garbage).toHaveLength(1);
    expect(head.garbage[0].g).toBe(gram ? GRAM_PARTS_MIN : undefined);
    expect(await meta(s.admin.api, 'refund')).toEqual({ mine_count: 2, unassigned_count: 0, assigned_count: 3, all_count: 3 });
    expect(await searchIds(s.admin.api, 'late refund')).toEqual([c.plain]);
    ok(await s.admin.api.post(`${s.base}/conversations/${c.plain}/assignments`, { assignee_id: null }), 'unassign');
    expect(await meta(s.admin.api, 'refund')).toEqual({ mine_count: 1, unassigned_count: 1, assigned_count: 2, all_count: 3 });
  });
});
