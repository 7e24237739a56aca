import { beforeAll, describe, expect, it } from 'vitest';
import * as keys from '#shared/db/keys.ts';
import { getGramPartition, getSearchHead } from '#shared/db/repositories/search-index.ts';
import { bucketOf } from '#shared/codec/search-segment.ts';
import { GRAM_PARTS_MIN, HEAD_TTL_MS, SEAL_LAG_S, sealSearchIndex } from '#shared/search/index.ts';
import { callRecorder } from '../../support/calls.ts';
import { seedAccount, type SeededAccount } from '../../support/runtime.ts';
import { untilState } from '../../support/until.ts';
import { newContact, newConversation, newInbox, ok } from '../conversations/fixtures.ts';

// The `q` index's gram partitions (docs/search.md#gram-partitions): a large segment keeps its buckets in the
// account's gram partitions, so a rare term reads its trigram's bucket of every large segment in one Query.
// Segments of both layouts answer together, merge into either, and a merged-away large segment's buckets
// go with it. Small segments are laid out as large ones here (`gram`).

const nowS = () => Math.floor(Date.now() / 1000);
/** Every segment laid out as a large one. */
const ANY_SIZE = { min: 1, docsPerPart: 0 };

/**
 * Seals everything created before the current second (`later` seconds on: merged-away segments are then
 * stale), then waits until no reader holds the head from before (HEAD_TTL_MS), so searches read the new one.
 */
async function seal(accountId: number, large: boolean, later = 0) {
  const before = nowS();
  await untilState(
    async () => nowS(),
    (t) => t > before,
  );
  expect(await sealSearchIndex(accountId, { now: nowS() + SEAL_LAG_S + later, min: 1, gram: large ? ANY_SIZE : undefined })).toBe(true);
  const sealed = Date.now();
  await untilState(
    async () => Date.now(),
    (t) => t > sealed + HEAD_TTL_MS,
    HEAD_TTL_MS + 5_000,
  );
}

describe('q over the gram partitions', () => {
  let s: SeededAccount;
  let recorder: ReturnType<typeof callRecorder>;
  const c: number[] = [];
  const say = async (n: number, content: string) =>
    ok(await s.admin.api.post(`${s.base}/conversations/${c[n]}/messages`, { content }), 'message');
  const searchIds = async (q: string) =>
    (ok(await s.admin.api.get(`${s.base}/conversations/search?q=${encodeURIComponent(q)}`), `search ${q}`).payload as { id: number }[])
      .map((x) => x.id)
      .sort((a, b) => a - b);
  const allCount = async (q: string) =>
    ok(await s.admin.api.get(`${s.base}/conversations/meta?q=${encodeURIComponent(q)}`), `meta ${q}`).meta.all_count;
  const sorted = (...ns: number[]) => ns.map((n) => c[n]).sort((a, b) => a - b);

  beforeAll(async () => {
    s = await seedAccount();
    recorder = callRecorder('gramPartitionRecorder');
    const inbox = await newInbox(s);
    const contact = await newContact(s);
    for (let n = 0; n < 4; n++) c.push((await newConversation(s, { inbox_id: inbox.id, contact_id: contact.id })).id);
    for (let n = 0; n < 10; n++) await say(n % 4, n === 3 ? 'a damaged Parcel arrived' : `where is order ${4000 + n}`);
    await seal(s.accountId, true);
    await say(1, 'the PARCEL went back');
    await say(2, 'order 4003 is here');
    await seal(s.accountId, true);
  }, 60_000);

  it('reads a trigram bucket of every large segment in one Query of its gram partition', async () => {
    const head = await getSearchHead(s.accountId);
    expect(head.segments.map((x) => [x.n, x.g])).toEqual([
      [10, GRAM_PARTS_MIN],
      [2, GRAM_PARTS_MIN],
    ]);
    expect(head.packs).toEqual([]);
    recorder.take();
    // The first search of the account: its head is read, not cached.
    expect(await searchIds('parcel')).toEqual(sorted(3, 1));
    const calls = recorder.take();
    const gramReads = calls.filter((x) => x.input.includes(`"SGRAM#${s.accountId}#`));
    expect(gramReads.map((x) => x.command)).toEqual(['QueryCommand']);
    // "parcel": one format 3 bucket trigram covers it; which one is the cover's choice, so its partition is one of its trigrams'.
    const parts = ['par', 'arc', 'rce', 'cel'].map((g) =>
      keys.searchGramPartition(s.accountId, GRAM_PARTS_MIN, bucketOf(g, GRAM_PARTS_MIN)),
    );
    expect(parts.some((pk) => gramReads[0].input.includes(`"${pk}"`))).toBe(true);
    // No bucket item of a segment's own partition is read.
    for (const x of head.segments)
      expect(calls.some((call) => call.input.includes(`"${keys.searchSegment(s.accountId, x.id)}"`))).toBe(false);
    expect(await allCount('parcel')).toBe(2);
    expect(await searchIds('order 400')).toEqual(sorted(0, 1, 2, 3));
    expect(await searchIds('order 4003')).toEqual(sorted(2));
    expect(await searchIds('zzzz')).toEqual([]);
  });

  it('merges large segments into a small one and back, answering alike, and drops merged-away buckets when stale', async () => {
    await say(0, 'parcels and order 4099');
    // [10, 2, 1] merge into one; laid out small (own buckets): the large ones are read from the gram partitions.
    await seal(s.accountId, false);
    let head = await getSearchHead(s.accountId, true);
    expect(head.segments.map((x) => [x.n, x.g])).toEqual([[13, undefined]]);
    const largeGone = head.garbage.filter((x) => x.g === GRAM_PARTS_MIN).map((x) => x.id);
    expect(largeGone).toHaveLength(2);
    expect(await searchIds('parcel')).toEqual(sorted(0, 1, 3));
    expect(await searchIds('order 4099')).toEqual(sorted(0));
    expect(await searchIds('where is')).toEqual(sorted(0, 1, 2, 3));
    expect(await searchIds('went back')).toEqual(sorted(1));

    // A large one beside the small one: both read.
    await say(2, 'one more parcel');
    await say(3, 'order 4100');
    await seal(s.accountId, true);
    head = await getSearchHead(s.accountId, true);
    expect(head.segments.map((x) => [x.n, x.g])).toEqual([
      [13, undefined],
      [2, GRAM_PARTS_MIN],
    ]);
    expect(await searchIds('parcel')).toEqual(sorted(0, 1, 2, 3));
    expect(await allCount('order 41')).toBe(1);

    // An hour on, the segments merged away first are stale: their items leave the gram partitions.
    await say(1, 'last parcel');
    await seal(s.accountId, true, 3600);
    head = await getSearchHead(s.accountId, true);
    expect(head.segments.map((x) => [x.n, x.g])).toEqual([
      [13, undefined],
      [3, GRAM_PARTS_MIN],
    ]);
    const held = new Set<string>();
    for (let part = 0; part < GRAM_PARTS_MIN; part++)
      for (const id of (await getGramPartition(s.accountId, GRAM_PARTS_MIN, part)).keys()) held.add(id);
    for (const id of largeGone) expect(held.has(id)).toBe(false);
    expect(held.has(head.segments[1].id)).toBe(true);
    expect(await searchIds('parcel')).toEqual(sorted(0, 1, 2, 3));
    expect(await searchIds('order 4100')).toEqual(sorted(3));
    expect(await searchIds('one more')).toEqual(sorted(2));
    expect(await searchIds('last parcel')).toEqual(sorted(1));
    expect(await searchIds('where is')).toEqual(sorted(0, 1, 2, 3));
  }, 90_000);
});
