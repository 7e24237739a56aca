import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

// What the documentation test reads: the comments of a TypeScript file (a small scanner that knows strings,
// template literals and regular expressions, so `'//'` or /\/\*/ is no comment), the repository paths a
// comment names, the relative links of a Markdown file, and the anchors its headings make (GitHub's rule).

export const ROOT = resolve(import.meta.dirname, '../../..');

export interface Comment {
  line: number;
  text: string;
}

const KEYWORDS_BEFORE_REGEX = new Set([
  'return',
  'typeof',
  'case',
  'do',
  'else',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'yield',
  'await',
  'instanceof',
]);
const PUNCTUATION_BEFORE_REGEX = new Set([...'(,=:[!&|?{};+-*%<>~^']);

/** Every `//` and `/* … *\/` comment of a TypeScript source, with the line it starts on. */
export function commentsOf(src: string): Comment[] {
  const found: { at: number; text: string }[] = [];
  let last = ''; // the last significant character outside comments, or the last word
  const isWord = (c: string) => /[\w$]/.test(c);

  const skipString = (i: number, quote: string): number => {
    for (i++; i < src.length; i++) {
      if (src[i] === '\\') i++;
      else if (src[i] === quote || src[i] === '\n') return i + 1;
    }
    return i;
  };
  const skipRegex = (i: number): number => {
    let inClass = false;
    for (i++; i < src.length; i++) {
      const c = src[i];
      if (c === '\\') i++;
      else if (c === '[') inClass = true;
      else if (c === ']') inClass = false;
      else if (c === '/' && !inClass) break;
      else if (c === '\n') return i;
    }
    for (i++; i < src.length && /[a-z]/.test(src[i]); i++);
    return i;
  };
  const skipTemplate = (i: number): number => {
    for (i++; i < src.length; i++) {
      if (src[i] === '\\') i++;
      else if (src[i] === '`') return i + 1;
      else if (src[i] === '$' && src[i + 1] === '{') {
        i = code(i + 2, true) - 1;
      }
    }
    return i;
  };
  /** Scans code from `i`; inside a template's `${…}`, returns the index after its closing brace. */
  const code = (i: number, inTemplate: boolean): number => {
    let depth = 0;
    while (i < src.length) {
      const c = src[i];
      const next = src[i + 1];
      if (c === '/' && next === '/') {
        const end = src.indexOf('\n', i);
        const stop = end < 0 ? src.length : end;
        found.push({ at: i, text: src.slice(i + 2, stop) });
        i = stop;
      } else if (c === '/' && next === '*') {
        const end = src.indexOf('*/', i + 2);
        const stop = end < 0 ? src.length : end;
        found.push({ at: i, text: src.slice(i + 2, stop) });
        i = stop + 2;
      } else if (c === '"' || c === "'") {
        i = skipString(i, c);
        last = 'x';
      } else if (c === '`') {
        i = skipTemplate(i);
        last = 'x';
      } else if (c === '/') {
        const regex = last === '' || PUNCTUATION_BEFORE_REGEX.has(last) || KEYWORDS_BEFORE_REGEX.has(last);
        i = regex ? skipRegex(i) : i + 1;
        last = regex ? 'x' : '/';
      } else if (isWord(c)) {
        let j = i;
        while (j < src.length && isWord(src[j])) j++;
        last = src.slice(i, j);
        i = j;
      } else if (/\s/.test(c)) {
        i++;
      } else {
        if (c === '{') depth++;
        if (c === '}') {
          if (depth === 0 && inTemplate) return i + 1;
          depth--;
        }
        last = c;
        i++;
      }
    }
    return i;
  };

  code(0, false);
  const lineOf = (at: number) => src.slice(0, at).split('\n').length;
  return found.map((c) => ({ line: lineOf(c.at), text: c.text }));
}

/** GitHub's anchors of a Markdown file's headings (outside code fences), duplicates numbered. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutFences(markdown).split('\n')) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = m[1]
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n ? `${base}-${n}` : base);
  }
  for (const m of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]);
  return anchors;
}

/** The Markdown with its fenced code blocks blanked (links and headings there are not links or headings). */
export function withoutFences(markdown: string): string {
  return markdown.replace(/^(```|~~~)[\s\S]*?^\1.*$/gm, (block) => block.replace(/[^\n]/g, ' '));
}

const anchorCache = new Map<string, Set<string>>();
const anchorsOfFile = (file: string) => {
  if (!anchorCache.has(file)) anchorCache.set(file, anchorsOf(readFileSync(file, 'utf8')));
  return anchorCache.get(file)!;
};

/** Why a repository-relative target (`path` or `path.md#anchor`) does not resolve, or undefined when it does. */
export function brokenTarget(absolute: string, anchor: string | undefined): string | undefined {
  if (!existsSync(absolute)) return 'no such file';
  if (anchor === undefined) return undefined;
  if (statSync(absolute).isDirectory() || !absolute.endsWith('.md')) return `an anchor on a file that is not Markdown`;
  if (!anchorsOfFile(absolute).has(anchor)) return `no heading makes #${anchor}`;
  return undefined;
}

// Not `events/`: prose says "events/s"; the sample events are cited from the Markdown, which is checked as links.
const TOP = ['shared', 'functions', 'infra', 'web', 'test', 'bench', 'scripts', 'docs', '.ci'];
const ROOT_FILES = ['README.md', 'BENCHMARKS.md', 'openapi.json', 'package.json', 'tsconfig.json', 'cdk.json', 'vitest.config.ts'];
const PATH = new RegExp(
  String.raw`(?<![\w./:@-])((?:${TOP.map((t) => t.replace('.', '\\.')).join('|')})/[\w./-]*[\w/]|(?:${ROOT_FILES.map((f) => f.replace('.', '\\.')).join('|')})|\.\.?/[\w./-]*\w)(#[\w-]+)?`,
  'g',
);

export interface Citation {
  path: string;
  anchor?: string;
  /** The repository-relative file the path names. */
  target: string;
}

/** The repository paths a comment names (`shared/db/keys.ts`, `docs/api.md#errors`, or relative to `from`, the citing file). */
export function citationsOf(text: string, from: string): Citation[] {
  const out: Citation[] = [];
  for (const m of text.matchAll(PATH)) {
    const following = text[m.index + m[0].length] ?? '';
    // A pattern, not a path: `functions/<interface>/…`, `shared/domain/{a,b}`, `test/**`.
    if (/[<{*…]/.test(following)) continue;
    const path = m[1];
    const target = path.startsWith('.') ? relative(ROOT, resolve(dirname(join(ROOT, from)), path)) : path.replace(/\/$/, '');
    const anchors: (string | undefined)[] = m[2] ? [m[2].slice(1)] : [undefined];
    // `docs/decisions.md#error-body, #status-codes`: further anchors of the same file.
    if (m[2]) {
      let tail = text.slice(m.index + m[0].length);
      for (;;) {
        const more = /^(?:,\s*|\s+and\s+)#([\w-]+)/.exec(tail);
        if (!more) break;
        if (!anchors.includes(more[1])) anchors.push(more[1]);
        tail = tail.slice(more[0].length);
      }
    }
    for (const anchor of anchors) out.push({ path, anchor, target });
  }
  return out;
}

/** The relative links of a Markdown file (`[text](target)`), outside code fences, with their lines. */
export function linksOf(markdown: string): { line: number; target: string }[] {
  const out: { line: number; target: string }[] = [];
  withoutFences(markdown)
    .split('\n')
    .forEach((line, n) => {
      for (const m of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        if (/^[a-z][\w+.-]*:/i.test(m[1])) continue; // https:, mailto:
        out.push({ line: n + 1, target: m[1] });
      }
    });
  return out;
}
