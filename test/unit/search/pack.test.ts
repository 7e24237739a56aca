import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodePack, encodePack, PACK_BYTES, packsOf } from '#shared/codec/search-pack.ts';
import type { SourceMessage } from '#shared/codec/search-segment.ts';

// Packs (the `q` index's level 0): tail messages kept together, deflated, each within one read unit.

const msg = (m: number, content: string, t = 1_700_000_000 + m): SourceMessage => ({ m, c: 10_000 + m, i: 1 + (m % 3), t, content });

describe('packs', () => {
  it('round-trip messages in (created_at, id) order, any text', () => {
    const messages = [
      msg(5, 'Ünïcödé 😀 text', 100),
      msg(2, '', 100),
      msg(90_000, 'a'.repeat(500), 5_000_000),
      msg(3, 'line\nbreak\ttab', 50),
    ];
    expect(decodePack(encodePack(messages))).toEqual([messages[3], messages[1], messages[0], messages[2]]);
  });

  it('cost a fraction of the text they hold when it repeats, as chat does', () => {
    const messages = Array.from({ length: 150 }, (_, k) => msg(k + 1, `Customer ${k} asks where order ${k * 7} is`));
    const raw = messages.reduce((t, m) => t + m.content.length, 0);
    const packs = packsOf(messages);
    expect(packs).toHaveLength(1);
    expect(packs[0].data.length).toBeLessThan(raw / 2);
    expect(decodePack(packs[0].data)).toEqual(messages);
  });

  it('split into packs of at most PACK_BYTES, in order, losing nothing (incompressible text, a message longer than a pack)', () => {
    const noise = Array.from({ length: 120 }, (_, k) => msg(k + 1, randomBytes(60).toString('base64')));
    const huge = msg(1000, randomBytes(6000).toString('base64'));
    const packs = packsOf([...noise, huge]);
    expect(packs.length).toBeGreaterThan(2);
    for (const p of packs) if (p.messages.length > 1) expect(p.data.length).toBeLessThanOrEqual(PACK_BYTES);
    expect(packs.at(-1)!.messages).toEqual([huge]);
    expect(packs.flatMap((p) => decodePack(p.data))).toEqual([...noise, huge]);
  });
});
