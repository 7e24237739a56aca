/** The largest page number read; past it (and for anything but a whole number from 1) a list answers page 1. */
export const MAX_PAGE = 1_000_000_000;

/**
 * Kaminari's reading of `page`, as every Chatwoot list reads it: a whole number from 1 (a number, or a string of
 * digits), anything else page 1.
 */
export function pageNumber(raw: unknown): number {
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d{1,10}$/.test(raw) ? Number(raw) : Number.NaN;
  return Number.isInteger(n) && n >= 1 && n <= MAX_PAGE ? n : 1;
}
