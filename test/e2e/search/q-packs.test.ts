import { beforeAll, describe, expect, it } from 'vitest';
import * as keys from '#shared/db/keys.ts';
import { getSearchHead } from '#shared/db/repositories/search-index.ts';
import { SEAL_LAG_S, sealSearchIndex } from '#shared/search/index.ts';
import { callRecorder } from '../../support/calls.ts';
import { seedAccount, type SeededAccount } from '../../support/runtime.ts';
import { untilState } from '../../support/until.ts';
import { newContact, newConversation, newInbox, ok } from '../conversations/fixtures.ts';

// Packs, the `q` index's level 0: the sealer keeps tail messages too few for a segment together in one
// deflated item, so a search scans a fraction of their bytes; the last pack takes later messages while it
// has room, and a segment is built from the packs once they and the tail hold enough. Every answer stays
// what the scan of the messages answers, before, between and after. Sealing is the pipeline's function,
// called here with small minimums.

const nowS = () => Math.floor(Date.now() / 1000);

describe('q search over packs', () => {
  let s: SeededAccount;
  let conversationId: number;
  let recorder: ReturnType<typeof callRecorder>;

  /** Seals what was created before the current second with these minimums. */
  async function seal(opts: { min: number; packMin: number }) {
    const before = nowS();
    await untilState(
      async () => nowS(),
      (t) => t > before,
    );
    return sealSearchIndex(s.accountId, { now: nowS() + SEAL_LAG_S, ...opts });
  }
  const say = async (content: string) =>
    ok(await s.admin.api.post(`${s.base}/conversations/${conversationId}/messages`, { content }), 'message');
  const found = async (q: string) =>
    (
      ok(await s.admin.api.get(`${s.base}/search/messages?q=${encodeURIComponent(q)}`), `messages ${q}`).payload.messages as {
        content: string;
      }[]
    )
      .map((m) => m.content)
      .sort();
  const metaAll = async (q: string) =>
    ok(await s.admin.api.get(`${s.base}/conversations/meta?q=${encodeURIComponent(q)}`), 'meta').meta.all_count;

  beforeAll(async () => {
    s = await seedAccount();
    recorder = callRecorder('qPacksRecorder');
    const inbox = await newInbox(s);
    const contact = await newContact(s);
    conversationId = (await newConversation(s, { inbox_id: inbox.id, contact_id: contact.id })).id;
    for (const text of ['Where is my Parcel?', 'parcels arrive on Monday', 'A damaged parcel, Ünïcödé', 'refund please']) await say(text);
  });

  it('too few tail messages stay in the tail; enough become one pack, not a segment', async () => {
    expect(await seal({ min: 100, packMin: 5 })).toBe(false);
    expect(await seal({ min: 100, packMin: 3 })).toBe(true);
    const head = await getSearchHead(s.accountId, true);
    expect(head.segments).toEqual([]);
    expect(head.packs).toHaveLength(1);
    expect(head.packs[0]).toMatchObject({ n: 4, bytes: expect.any(Number) });
    expect(head.packs[0].bytes).toBeLessThan(400);
    expect(head.watermark).toBeGreaterThan(0);
  });

  it('packed messages answer as before: parts of words, phrases, any case, short terms', async () => {
    expect(await found('parcel')).toEqual(['A damaged parcel, Ünïcödé', 'Where is my Parcel?', 'parcels arrive on Monday']);
    expect(await found('damaged PARCEL')).toEqual(['A damaged parcel, Ünïcödé']);
    expect(await found('ünï')).toEqual(['A damaged parcel, Ünïcödé']);
    expect(await found('Mo')).toEqual(['parcels arrive on Monday']);
    expect(await metaAll('refund')).toBe(1);
  });

  it('a search reads the pack with its BatchGet and the tail only from the watermark', async () => {
    const head = await getSearchHead(s.accountId, true);
    recorder.take();
    await found('parcel');
    const calls = recorder.take();
    const pack = keys.searchPack(s.accountId, head.packs[0].id);
    expect(calls.filter((c) => c.command === 'BatchGetItemCommand' && c.input.includes(`"${pack.pk}"`))).toHaveLength(1);
    const tailQueries = calls.filter((c) => c.command === 'QueryCommand' && c.input.includes(`"${keys.searchTailPartition(s.accountId)}"`));
    expect(tailQueries).toHaveLength(1);
    expect(tailQueries[0].input).toContain(`"${keys.searchTailFrom(head.watermark)}"`);
  });

  it('a message posted after packing is found at once; the next pack extends the last one', async () => {
    await say('second parcel note');
    await say('one more REFUND');
    expect(await found('parcel')).toEqual([
      'A damaged parcel, Ünïcödé',
      'Where is my Parcel?',
      'parcels arrive on Monday',
      'second parcel note',
    ]);
    const before = await getSearchHead(s.accountId, true);
    expect(await seal({ min: 100, packMin: 2 })).toBe(true);
    const head = await getSearchHead(s.accountId, true);
    expect(head.packs).toHaveLength(1);
    expect(head.packs[0].n).toBe(6);
    expect(head.packs[0].id).not.toBe(before.packs[0].id);
    // The replaced pack stays readable a while for readers holding the older head.
    expect(head.garbage.map((g) => g.id)).toContain(before.packs[0].id);
    expect(await found('parcel')).toHaveLength(4);
    expect(await found('refund')).toEqual(['one more REFUND', 'refund please']);
    expect(await metaAll('refund')).toBe(1);
  });

  it('once packs and tail hold enough, a segment is built from them and the packs go', async () => {
    await say('last parcel of the day');
    const before = await getSearchHead(s.accountId, true);
    expect(await seal({ min: 7, packMin: 50 })).toBe(true);
    const head = await getSearchHead(s.accountId, true);
    expect(head.packs).toEqual([]);
    expect(head.segments).toHaveLength(1);
    expect(head.segments[0].n).toBe(7);
    expect(head.segments[0].from).toBe(before.packs[0].from);
    expect(head.garbage.map((g) => g.id)).toContain(before.packs[0].id);
    expect(await found('parcel')).toEqual([
      'A damaged parcel, Ünïcödé',
      'Where is my Parcel?',
      'last parcel of the day',
      'parcels arrive on Monday',
      'second parcel note',
    ]);
    expect(await found('damaged parcel')).toEqual(['A damaged parcel, Ünïcödé']);
    expect(await found('refund')).toEqual(['one more REFUND', 'refund please']);
    expect(await metaAll('refund')).toBe(1);
  });
});
