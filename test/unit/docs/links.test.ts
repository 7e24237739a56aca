import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../architecture/imports.ts';
import { anchorsOf, brokenTarget, citationsOf, commentsOf, linksOf, ROOT } from './links.ts';

// Documentation that points somewhere must point at something: every repository path a code comment names
// (`shared/db/keys.ts`, `docs/api.md#errors`) and every relative link of the README and of docs/ names a file
// that exists and, with an anchor, a heading of that file that makes it. And no comment sends the reader to
// a working note outside the repository: what the code relies on is written in docs/ (contract.md,
// chatwoot.md, decisions.md), and comments cite those pages.

const SOURCES = sourceFiles('shared', 'functions', 'infra', 'web', 'test', 'bench', 'scripts');
const MARKDOWN = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const comments = SOURCES.map((file) => ({ file, comments: commentsOf(readFileSync(join(ROOT, file), 'utf8')) }));

/** Citations of documents that are not in the repository (the working notes the project started from). */
const OUTSIDE = [/\bspec\s*§/i, /\breference\s*§/i, /\bDESIGN\.md\b/, /\bspec (?:endpoints?|rules?) \d/i];

describe('the comment scanner', () => {
  it('finds line and block comments, and nothing inside strings, templates or regular expressions', () => {
    const src = [
      "const a = 'not // a comment'; // one",
      'const b = "/* nor this */"; /* two',
      '   still two */',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: sample source text for the comment scanner.
      'const c = `template // ${x /* three */ + `inner // ${y}`} /* no */`;',
      'const d = /\\/\\/ no[/]/g.test(s) ? 1 / 2 : 3; // four',
      'const e = f(x) / g(y); // five',
    ].join('\n');
    expect(commentsOf(src)).toEqual([
      { line: 1, text: ' one' },
      { line: 2, text: ' two\n   still two ' },
      { line: 4, text: ' three ' },
      { line: 5, text: ' four' },
      { line: 6, text: ' five' },
    ]);
  });

  it('reads paths, patterns and further anchors of a citation', () => {
    const cites = citationsOf(
      'see shared/db/keys.ts, docs/decisions.md#error-body, #status-codes and functions/<interface>/x.ts; (./limits.ts)',
      'shared/http/handler.ts',
    );
    expect(cites.map((c) => `${c.target}${c.anchor ? `#${c.anchor}` : ''}`)).toEqual([
      'shared/db/keys.ts',
      'docs/decisions.md#error-body',
      'docs/decisions.md#status-codes',
      'shared/http/limits.ts',
    ]);
  });

  it('knows GitHub anchors and refuses a missing file or heading', () => {
    expect([
      ...anchorsOf(
        '# Realtime: `/cable` (ActionCable)\n## Labels, priority, custom attributes, mute\n## Labels, priority, custom attributes, mute\n```\n# not a heading\n```',
      ),
    ]).toEqual(['realtime-cable-actioncable', 'labels-priority-custom-attributes-mute', 'labels-priority-custom-attributes-mute-1']);
    expect(brokenTarget(join(ROOT, 'docs/api.md'), 'errors')).toBeUndefined();
    expect(brokenTarget(join(ROOT, 'docs/api.md'), 'no-such-heading')).toBe('no heading makes #no-such-heading');
    expect(brokenTarget(join(ROOT, 'shared/nothing-here.ts'), undefined)).toBe('no such file');
  });
});

describe('documentation links', () => {
  it('reads comments from every source file', () => {
    expect(SOURCES.length).toBeGreaterThan(500);
    expect(comments.reduce((n, f) => n + f.comments.length, 0)).toBeGreaterThan(3000);
  });

  it('every repository path a code comment cites exists (with its heading, for an anchor)', () => {
    const broken: string[] = [];
    let cited = 0;
    for (const { file, comments: list } of comments) {
      for (const c of list) {
        for (const cite of citationsOf(c.text, file)) {
          cited++;
          const why = brokenTarget(join(ROOT, cite.target), cite.anchor);
          if (why) broken.push(`${file}:${c.line}: ${cite.path}${cite.anchor ? `#${cite.anchor}` : ''}: ${why}`);
        }
      }
    }
    expect(broken).toEqual([]);
    expect(cited).toBeGreaterThan(200);
  });

  it('no comment cites a document outside the repository', () => {
    const outside: string[] = [];
    for (const { file, comments: list } of comments) {
      for (const c of list) if (OUTSIDE.some((re) => re.test(c.text))) outside.push(`${file}:${c.line}: ${c.text.trim().slice(0, 120)}`);
    }
    expect(outside).toEqual([]);
  });

  it('every relative link of the README and of docs/ names a file and heading that exist', () => {
    const broken: string[] = [];
    for (const md of MARKDOWN) {
      const text = readFileSync(join(ROOT, md), 'utf8');
      for (const link of linksOf(text)) {
        const [path, anchor] = link.target.split('#');
        const absolute = path ? resolve(dirname(join(ROOT, md)), path) : join(ROOT, md);
        if (!absolute.startsWith(ROOT)) broken.push(`${md}:${link.line}: ${link.target}: outside the repository`);
        const why = brokenTarget(absolute, anchor);
        if (why) broken.push(`${md}:${link.line}: ${link.target} (${relative(ROOT, absolute)}): ${why}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('the documentation names no working note outside the repository', () => {
    const outside = MARKDOWN.filter((md) =>
      /DESIGN\.md|service-interface\.md|chatwoot-behaviour\.md|\bspec §|\breference §/.test(readFileSync(join(ROOT, md), 'utf8')),
    );
    expect(outside).toEqual([]);
  });
});
