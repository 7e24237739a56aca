// Text rules of the help center: Rails' `parameterize` for slugs, and the article search (PostgreSQL's
// prefix text search as Chatwoot's pg_search scope uses it: every term must begin a word of the title,
// description or content).

/** Lower-case words of letters and digits joined by '-' (accents folded), as Rails' `parameterize`. */
export function parameterize(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

const words = (text: string) =>
  text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu) ?? [];

/** The terms of a search query (at most 10, each a word). */
export const searchTerms = (query: string | undefined) => [...new Set(words(query ?? '').slice(0, 10))];

/** Every term begins a word of the article's title, description or content (no terms: everything matches). */
export function matchesQuery(a: { title: string; description: string | null; content: string }, terms: string[]): boolean {
  if (!terms.length) return true;
  const have = words(`${a.title} ${a.description ?? ''} ${a.content}`);
  return terms.every((t) => have.some((w) => w.startsWith(t)));
}
