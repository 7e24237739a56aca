// Tokenising for `q` search, shared by the index writer and the reader so both cut text the same way.
//
// Meaning kept from the plain scan: a message matches when its lower-cased content contains the
// lower-cased term (case-insensitive substring, any characters, spaces included, so phrases and parts
// of words match). The index holds every trigram (three consecutive code points of the lower-cased
// content) with its positions; a term of three or more code points matches at position p exactly when
// each trigram of a set of windows covering the term occurs at p + its offset, so no text is re-read.

export const GRAM = 3;

/** The form both sides compare: lower case, as code points (no unpaired surrogates reach the table). */
export const codePoints = (text: string): string[] => Array.from(text.toLowerCase());

/** Every trigram of a text with its code-point positions, ascending. */
export function trigramPositions(text: string): Map<string, number[]> {
  const cps = codePoints(text);
  const out = new Map<string, number[]>();
  for (let i = 0; i + GRAM <= cps.length; i++) {
    const g = cps[i] + cps[i + 1] + cps[i + 2];
    const list = out.get(g);
    if (list) list.push(i);
    else out.set(g, [i]);
  }
  return out;
}

export interface Window {
  /** Offset of the trigram in the term (code points). */
  offset: number;
  gram: string;
}

/** The trigram windows of a term, or undefined when it is shorter than a trigram (the index cannot answer it). */
export function termWindows(term: string): Window[] | undefined {
  const cps = codePoints(term);
  if (cps.length < GRAM) return undefined;
  const out: Window[] = [];
  for (let i = 0; i + GRAM <= cps.length; i++) out.push({ offset: i, gram: cps[i] + cps[i + 1] + cps[i + 2] });
  return out;
}

/**
 * The cheapest set of windows that covers every code point of the term (each window covers three),
 * by `cost` per trigram: the reader fetches only these postings. Always includes the first and the last
 * window; consecutive chosen windows overlap or touch.
 */
export function cover(windows: Window[], cost: (gram: string) => number): Window[] {
  const n = windows.length;
  // best[i]: cheapest cover of code points [0, offset_i + 3) ending with window i.
  const best: number[] = new Array(n).fill(Infinity);
  const prev: number[] = new Array(n).fill(-1);
  for (let i = 0; i < n; i++) {
    const c = cost(windows[i].gram);
    if (i === 0) {
      best[0] = c;
      continue;
    }
    // Window i covers [i, i+3): the previous chosen window j must reach at least i (j + 3 >= i).
    for (let j = Math.max(0, i - GRAM); j < i; j++) {
      if (best[j] + c < best[i]) {
        best[i] = best[j] + c;
        prev[i] = j;
      }
    }
  }
  const chosen: Window[] = [];
  for (let i = n - 1; i >= 0; i = prev[i]) chosen.push(windows[i]);
  return chosen.reverse();
}

/**
 * Positions where the term starts, given each chosen window's positions in one document: p such that
 * every window occurs at p + its offset.
 */
export function startsOf(chosen: Window[], positions: (number[] | undefined)[]): number[] {
  if (!chosen.length || positions.some((p) => !p?.length)) return [];
  const sets = positions.slice(1).map((p) => new Set(p));
  const out: number[] = [];
  for (const at of positions[0]!) {
    const p = at - chosen[0].offset;
    if (sets.every((s, k) => s.has(p + chosen[k + 1].offset))) out.push(p);
  }
  return out;
}

/** The scan both sides agree with (tail messages, short terms): lower-cased substring. */
export const containsTerm = (content: unknown, term: string): boolean =>
  typeof content === 'string' && content.toLowerCase().includes(term.toLowerCase());
