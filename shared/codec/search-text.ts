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

/** A window the reader fetches, with the code points after its trigram it also checks (format 3 buckets). */
export interface Chosen extends Window {
  /** The term's code points right after the trigram that this window's posting must show ('' for none). */
  need: string;
}

/**
 * The cheapest set of windows that covers every code point of the term, by `cost` per trigram: the
 * reader fetches only these postings. A window covers its three code points and, where its posting
 * carries them (`follow` > 0: a format 3 bucket), that many more. Consecutive chosen windows overlap or
 * touch; the first starts the term and the last reaches its end.
 */
export function cover(windows: Window[], cost: (gram: string) => number, follow: (gram: string) => number = () => 0): Chosen[] {
  const cps = [...windows.map((w) => Array.from(w.gram)[0]), ...Array.from(windows.at(-1)!.gram).slice(1)];
  const L = cps.length;
  const reach = (w: Window) => Math.min(L, w.offset + GRAM + follow(w.gram));
  // best[e]: the cheapest chain of windows covering code points [0, e); via[e]: its last window and the
  // state before it.
  const best: number[] = new Array(L + 1).fill(Infinity);
  const via: { w: number; from: number }[] = new Array(L + 1);
  best[0] = 0;
  for (let e = 0; e < L; e++) {
    if (best[e] === Infinity) continue;
    windows.forEach((w, k) => {
      const to = reach(w);
      if (w.offset > e || to <= e) return;
      const c = best[e] + cost(w.gram);
      if (c < best[to]) {
        best[to] = c;
        via[to] = { w: k, from: e };
      }
    });
  }
  const chosen: Chosen[] = [];
  for (let e = L; e > 0; e = via[e].from) {
    const w = windows[via[e].w];
    chosen.push({ ...w, need: cps.slice(w.offset + GRAM, reach(w)).join('') });
  }
  return chosen.reverse();
}

/**
 * Positions where the term starts, given each chosen window's positions in one document: p such that
 * every window occurs at p + its offset, and is followed there by the code points it `need`s
 * (`follows`: each window's following code points, aligned with its positions).
 */
export function startsOf(chosen: Chosen[], positions: (number[] | undefined)[], follows: (string[] | undefined)[] = []): number[] {
  if (!chosen.length || positions.some((p) => !p?.length)) return [];
  // Per window: position → whether the code points after it are what the window needs.
  const fits = chosen.map((w, k) => {
    const after = follows[k];
    return new Map(positions[k]!.map((at, n) => [at, !w.need || (!!after && after[n]?.startsWith(w.need))]));
  });
  const out: number[] = [];
  for (const at of positions[0]!) {
    const p = at - chosen[0].offset;
    if (chosen.every((w, k) => fits[k].get(p + w.offset) === true)) out.push(p);
  }
  return out;
}

/** The scan both sides agree with (tail messages, short terms): lower-cased substring. */
export const containsTerm = (content: unknown, term: string): boolean =>
  typeof content === 'string' && content.toLowerCase().includes(term.toLowerCase());
