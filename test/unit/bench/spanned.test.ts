import { describe, expect, it } from 'vitest';
import { spanned } from '../../../bench/instrument.ts';

// The time the bench's billing reads take from a request: concurrent writes' reads overlap and count once.

describe('spanned', () => {
  it('adds spans apart and counts an overlap once', () => {
    expect(spanned([])).toBe(0);
    expect(
      spanned([
        [0, 2],
        [5, 6],
      ]),
    ).toBe(3);
    // Three writes of a bulk action billed at once: 0–4, 1–5 and 2–3 cover 0–5.
    expect(
      spanned([
        [1, 5],
        [0, 4],
        [2, 3],
      ]),
    ).toBe(5);
    expect(
      spanned([
        [0, 4],
        [4, 6],
        [10, 11],
      ]),
    ).toBe(7);
  });
});
