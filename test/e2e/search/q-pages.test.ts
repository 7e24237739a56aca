import { beforeAll, describe, expect, it } from 'vitest';
import { SEAL_LAG_S, sealSearchIndex } from '#shared/search/index.ts';
import { seedAccount, type SeededAccount } from '../../support/runtime.ts';
import { untilState } from '../../support/until.ts';
import { addInboxMembers, newContact, newConversation, newInbox, newTeam, ok } from '../conversations/fixtures.ts';

// `conversations?q=` and `conversations/search?q=` with more matches than two pages: the page is found
// from the activity index since its newest matches (not by reading every matching conversation), so it
// must equal the plain list's order restricted to the matches, page by page, with any filter, and follow
// activity that did not match (a later reply without the term) and messages posted a moment ago.

const nowS = () => Math.floor(Date.now() / 1000);
const TERM = 'zebracode';

describe('q list pages in activity order', () => {
  let s: SeededAccount;
  let inboxA: { id: number };
  let inboxB: { id: number };
  let team: { id: number };
  /** Display id → whether its message holds the term. */
  const matching = new Set<number>();
  const all: number[] = [];

  const get = async (api: SeededAccount['admin']['api'], path: string) => ok(await api.get(`${s.base}/${path}`), path);
  /** The plain list (no q) of every status, in its order, all pages. */
  async function plainOrder(extra = '', api = s.admin.api): Promise<number[]> {
    const out: number[] = [];
    for (let p = 1; ; p++) {
      const page = (await get(api, `conversations?status=all&page=${p}${extra}`)).data.payload as { id: number }[];
      out.push(...page.map((c) => c.id));
      if (page.length < 25) return out;
    }
  }
  async function qOrder(extra = '', api = s.admin.api): Promise<{ ids: number[]; meta: Record<string, number> }> {
    const ids: number[] = [];
    let meta: Record<string, number> = {};
    for (let p = 1; ; p++) {
      const data = (await get(api, `conversations?q=${TERM.toUpperCase()}&page=${p}${extra}`)).data;
      if (p === 1) meta = data.meta;
      ids.push(...(data.payload as { id: number }[]).map((c) => c.id));
      if (data.payload.length < 25) return { ids, meta };
    }
  }

  beforeAll(async () => {
    s = await seedAccount();
    [inboxA, inboxB] = await Promise.all([newInbox(s), newInbox(s)]);
    await addInboxMembers(s, inboxA.id, [s.agent.id]);
    team = await newTeam(s, [s.admin.id]);
    const contact = await newContact(s);
    const statuses = ['open', 'resolved', 'pending', 'open'];
    for (let i = 0; i < 72; i += 12) {
      const batch = await Promise.all(
        Array.from({ length: 12 }, (_, k) => {
          const n = i + k;
          const hit = n % 6 !== 5;
          const body = {
            inbox_id: n % 3 === 0 ? inboxB.id : inboxA.id,
            contact_id: contact.id,
            status: statuses[n % 4],
            ...(n % 5 === 0 ? { assignee_id: s.agent.id } : {}),
            ...(n % 7 === 0 ? { team_id: team.id } : {}),
            message: { content: hit ? `Order ${n}: the ${n % 2 ? 'ZebraCode' : 'zebracode'} is wrong` : `Order ${n}: where is it?` },
          };
          return newConversation(s, body).then((c) => ({ id: c.id as number, hit }));
        }),
      );
      for (const c of batch) {
        all.push(c.id);
        if (c.hit) matching.add(c.id);
      }
      // The first half is sealed into a segment (as the pipeline does), the rest stays in the tail.
      if (i === 24) {
        const before = nowS();
        await untilState(
          async () => nowS(),
          (t) => t > before,
        );
        expect(await sealSearchIndex(s.accountId, { now: nowS() + SEAL_LAG_S, min: 1 })).toBe(true);
      }
    }
    expect(matching.size).toBe(60);
  });

  it('pages equal the plain list restricted to the matches, and the counts equal meta?q=', async () => {
    const expected = (await plainOrder()).filter((id) => matching.has(id));
    const { ids, meta } = await qOrder();
    expect(ids).toHaveLength(60);
    expect(ids).toEqual(expected);
    const counts = (await get(s.admin.api, `conversations/meta?q=${TERM}`)).meta;
    expect(meta).toEqual(counts);
    expect(meta.all_count).toBe(60);
  });

  it('follows later activity without the term, and finds a message right after its POST', async () => {
    const before = (await qOrder()).ids;
    const oldMatch = before.at(-1)!;
    const oldOther = all.find((id) => !matching.has(id))!;
    // A reply without the term moves an old match to the top; a new matching message makes a match of another.
    ok(await s.admin.api.post(`${s.base}/conversations/${oldMatch}/messages`, { content: 'a reply about nothing' }), 'reply');
    ok(await s.admin.api.post(`${s.base}/conversations/${oldOther}/messages`, { content: `now it is a zEbRaCoDe case` }), 'match');
    matching.add(oldOther);
    const { ids, meta } = await qOrder();
    expect(meta.all_count).toBe(61);
    // The old match moved up and the new match joined. (Not necessarily the first two: conversations seeded in
    // the same second rank by display id, as in the plain list, which the order must equal.)
    expect(ids.indexOf(oldMatch)).toBeLessThan(before.indexOf(oldMatch));
    expect(ids).toContain(oldOther);
    expect(ids).toEqual((await plainOrder()).filter((id) => matching.has(id)));
  });

  it('applies assignee_type, inbox, team and the agent scope the same way as the plain list', async () => {
    for (const extra of ['&assignee_type=unassigned', `&inbox_id=${inboxA.id}`, `&team_id=${team.id}`, '&assignee_type=assigned']) {
      const { ids } = await qOrder(extra);
      expect(ids, extra).toEqual((await plainOrder(extra)).filter((id) => matching.has(id)));
      expect(ids.length, extra).toBeGreaterThan(0);
    }
    const agent = await qOrder('', s.agent.api);
    expect(agent.ids).toEqual((await plainOrder('', s.agent.api)).filter((id) => matching.has(id)));
    expect(agent.ids.length).toBeLessThan(matching.size);
  });

  it('conversations/search pages the same conversations, each with its matching messages', async () => {
    const { ids } = await qOrder();
    for (const [p, want] of [
      [1, ids.slice(0, 25)],
      [3, ids.slice(50, 75)],
    ] as const) {
      const body = await get(s.admin.api, `conversations/search?q=${TERM}&page=${p}`);
      const payload = body.payload as { id: number; messages: { content: string }[] }[];
      expect(payload.map((c) => c.id)).toEqual(want);
      for (const c of payload) {
        expect(c.messages.length).toBeGreaterThan(0);
        for (const m of c.messages) expect(m.content.toLowerCase()).toContain(TERM);
      }
      expect(body.meta.all_count).toBe(matching.size);
    }
  });
});
