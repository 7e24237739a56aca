import { describe, expect, it } from 'vitest';
import { roundTrips } from '../../../bench/instrument.ts';

// The scale part reports a request's DynamoDB calls as sequential round trips: calls sent together count once.

describe('roundTrips', () => {
  it('counts calls sent before any of the current round answered as one round', () => {
    expect(roundTrips([])).toBe(0);
    expect(roundTrips([{ at: 0, ms: 5 }])).toBe(1);
    // Three in parallel, then one after the first answered, then two more together.
    const calls = [
      { at: 0, ms: 10 },
      { at: 1, ms: 4 },
      { at: 2, ms: 8 },
      { at: 6, ms: 3 },
      { at: 12, ms: 5 },
      { at: 13, ms: 2 },
    ];
    expect(roundTrips(calls)).toBe(3);
    // The order they are given in does not matter.
    expect(roundTrips([...calls].reverse())).toBe(3);
  });
});
