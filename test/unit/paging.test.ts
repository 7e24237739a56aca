import { describe, expect, it } from 'vitest';
import { MAX_PAGE, pageNumber } from '#shared/domain/paging.ts';

// Every list reads `page` one way (Kaminari's, as Chatwoot's controllers do): a whole number from 1, else page 1.

describe('pageNumber', () => {
  it('reads a whole number from 1, as a number or a string of digits', () => {
    expect(pageNumber('3')).toBe(3);
    expect(pageNumber(2)).toBe(2);
    expect(pageNumber(String(MAX_PAGE))).toBe(MAX_PAGE);
  });

  it('reads anything else as page 1', () => {
    for (const raw of [
      undefined,
      null,
      '',
      '0',
      0,
      '-1',
      -2,
      'abc',
      '1.5',
      1.5,
      ' 2',
      '2abc',
      '1e3',
      '99999999999',
      MAX_PAGE + 1,
      [],
      {},
    ]) {
      expect(pageNumber(raw)).toBe(1);
    }
  });
});
