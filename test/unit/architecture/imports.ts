import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

// The project's own imports, read from the source as text: every `import … from`, `export … from`,
// side-effect `import '…'` and `import('…')` with a literal path, relative or `#shared/…`. Paths are
// repository-relative.

export const ROOT = resolve(import.meta.dirname, '../../..');

export interface Import {
  from: string;
  to: string;
  /** `import type`, or braces naming types only: erased at run time. */
  typeOnly: boolean;
}

const SKIP = new Set(['node_modules', 'dist', '.git', 'cdk.out', '.build']);

export function sourceFiles(...dirs: string[]): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(ROOT, dir)).flatMap((name) => {
      if (SKIP.has(name)) return [];
      const path = join(dir, name);
      return statSync(join(ROOT, path)).isDirectory() ? walk(path) : /\.tsx?$/.test(name) ? [path] : [];
    });
  return dirs.flatMap(walk);
}

const STATEMENT = /^\s*(?:import|export)\s+(type\s+)?([\s\S]*?)\s*from\s*'([^']+)'|^\s*import\s+'([^']+)'|\bimport\(\s*'([^']+)'\s*\)/gm;

const namesTypesOnly = (clause: string) => {
  const braces = /^\{([\s\S]*)\}$/.exec(clause.trim());
  if (!braces) return false;
  const names = braces[1]
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  return names.length > 0 && names.every((n) => n.startsWith('type '));
};

/** The repository path an import names: relative, or through the `#shared/*` alias (package.json `imports`). */
function resolveSpec(from: string, spec: string): string | undefined {
  if (spec.startsWith('#shared/')) return spec.slice(1);
  if (spec.startsWith('.')) return relative(ROOT, resolve(dirname(join(ROOT, from)), spec));
  return undefined;
}

/** The project's own imports of the given files (package imports are not the project's). */
export function importsOf(files: string[]): Import[] {
  const out: Import[] = [];
  for (const from of files) {
    const text = readFileSync(join(ROOT, from), 'utf8');
    for (const m of text.matchAll(STATEMENT)) {
      const spec = m[3] ?? m[4] ?? m[5];
      const to = resolveSpec(from, spec);
      if (to === undefined) continue;
      out.push({ from, to, typeOnly: m[3] !== undefined && (!!m[1] || namesTypesOnly(m[2])) });
    }
  }
  return out;
}

/** Packages a file imports (the part before the first path segment that is not the package's). */
export function packagesOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(STATEMENT)].map((m) => m[3] ?? m[4] ?? m[5]).filter((s) => !s.startsWith('.') && !s.startsWith('#'));
}

/** Strongly connected components of more than one node (Tarjan), each sorted. */
export function cycles(edges: Iterable<[string, string]>): string[][] {
  const next = new Map<string, Set<string>>();
  for (const [a, b] of edges) {
    if (a === b) continue;
    if (!next.has(a)) next.set(a, new Set());
    if (!next.has(b)) next.set(b, new Set());
    next.get(a)!.add(b);
  }
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of next.get(v)!) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const part: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        part.push(w);
      } while (w !== v);
      if (part.length > 1) found.push(part.sort());
    }
  };
  for (const v of next.keys()) if (!idx.has(v)) visit(v);
  return found;
}
