import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cycles, importsOf, packagesOf, ROOT, sourceFiles } from './imports.ts';

// The import rule of docs/architecture.md, read from its table and held against every import of the code.

interface Layer {
  name: string;
  holds: string[];
  mayImport: Set<string>;
  /** Layers whose types only it may import (`name (types only)`). */
  typesOf: Set<string>;
}

function layersOfDoc(): Layer[] {
  const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const table = /<!-- layers:start -->([\s\S]*?)<!-- layers:end -->/.exec(doc)?.[1] ?? '';
  return table
    .split('\n')
    .filter((l) => l.startsWith('|') && !/^\|\s*(layer|---)/.test(l))
    .map((l) => {
      const [name, holds, may] = l
        .split('|')
        .slice(1, 4)
        .map((c) => c.trim());
      const entries = may.split(',').map((s) => s.trim());
      const typesOnly = (e: string) => e.endsWith('(types only)');
      return {
        name,
        holds: [...holds.matchAll(/`([^`]+)`/g)].map((m) => m[1]),
        mayImport: new Set(entries.filter((e) => !typesOnly(e))),
        typesOf: new Set(entries.filter(typesOnly).map((e) => e.replace('(types only)', '').trim())),
      };
    });
}

const layers = layersOfDoc();

/** The layer a path belongs to: the longest `holds` entry it starts with (a folder) or equals (a file). */
function layerOf(path: string): Layer | undefined {
  let best: { layer: Layer; length: number } | undefined;
  for (const layer of layers) {
    for (const h of layer.holds) {
      const match = h.endsWith('/') ? path.startsWith(h) : path === h;
      if (match && h.length > (best?.length ?? 0)) best = { layer, length: h.length };
    }
  }
  return best?.layer;
}

const files = sourceFiles('shared', 'functions', 'infra', 'bench', 'scripts', 'web');
const imports = importsOf(files).filter((i) => !i.to.startsWith('node_modules/'));

/** `shared/<folder>` or a file directly in `shared/`; the first folder of any other path. */
const folderOf = (path: string) => {
  const parts = path.split('/');
  return parts[0] === 'shared' && parts.length > 2 ? `shared/${parts[1]}` : parts[0] === 'shared' ? path : parts[0];
};

describe('layers (docs/architecture.md)', () => {
  it('reads a table that names every layer it refers to', () => {
    expect(layers.map((l) => l.name)).toEqual([
      'ground',
      'data',
      'domain',
      'http',
      'stages',
      'pipeline',
      'functions',
      'entry',
      'browser',
      'assets',
    ]);
    const names = new Set(layers.map((l) => l.name));
    for (const l of layers) for (const m of [...l.mayImport, ...l.typesOf]) expect(names, `${l.name} may import ${m}`).toContain(m);
  });

  it('places every source file in a layer', () => {
    expect(files.filter((f) => !layerOf(f))).toEqual([]);
  });

  it('has no import the table does not allow', () => {
    const wrong = imports
      .filter((i) => layerOf(i.to))
      .filter((i) => {
        const [from, to] = [layerOf(i.from)!, layerOf(i.to)!.name];
        return !from.mayImport.has(to) && !(i.typeOnly && from.typesOf.has(to));
      })
      .map((i) => `${i.from} (${layerOf(i.from)!.name}) -> ${i.to} (${layerOf(i.to)!.name})`);
    expect(wrong).toEqual([]);
  });

  it('has no cycle among the folders of shared/', () => {
    const edges = imports
      .filter((i) => i.from.startsWith('shared/') && i.to.startsWith('shared/'))
      .map((i) => [folderOf(i.from), folderOf(i.to)] as [string, string]);
    expect(cycles(edges)).toEqual([]);
  });

  it('has no cycle among files', () => {
    expect(cycles(imports.map((i) => [i.from, i.to] as [string, string]))).toEqual([]);
  });

  it('keeps stage folders and route functions apart from one another', () => {
    const stageFolder = (p: string) => (layerOf(p)?.name === 'stages' ? p.split('/').slice(0, 2).join('/') : undefined);
    const across = imports.filter((i) => {
      const [a, b] = [stageFolder(i.from), stageFolder(i.to)];
      return (a && b && a !== b) || (i.from.startsWith('functions/') && i.to.startsWith('functions/'));
    });
    expect(across.map((i) => `${i.from} -> ${i.to}`)).toEqual([]);
  });

  it('keeps channel rooms apart: a room imports only itself and the common files directly in shared/channels/', () => {
    const roomOf = (p: string) => /^shared\/channels\/([^/]+)\//.exec(p)?.[1];
    const across = imports.filter((i) => {
      const from = roomOf(i.from);
      if (!from || !i.to.startsWith('shared/channels/')) return false;
      const to = roomOf(i.to);
      return to !== undefined && to !== from;
    });
    expect(across.map((i) => `${i.from} -> ${i.to}`)).toEqual([]);
  });

  it('leaves transactions to the repositories: no layer above data builds transaction items', () => {
    const builders = /import\s*\{([^}]*)\}\s*from\s*'[^']*db\/transact\.ts'/g;
    const building = files
      .filter((f) => ['domain', 'http', 'stages', 'pipeline', 'functions'].includes(layerOf(f)?.name ?? ''))
      .filter((f) =>
        [...readFileSync(join(ROOT, f), 'utf8').matchAll(builders)].some((m) =>
          m[1].split(',').some((n) => /^(type\s+)?(put|del|check|transact|TxItem)$/.test(n.trim())),
        ),
      );
    expect(building).toEqual([]);
  });

  it('calls DynamoDB only from shared/db/', () => {
    const dynamo = /^@aws-sdk\/(lib-dynamodb|client-dynamodb|util-dynamodb|client-dynamodb-streams)$/;
    const outside = files
      .filter((f) => !f.startsWith('shared/db/') && layerOf(f)?.name !== 'entry')
      .filter((f) => packagesOf(f).some((p) => dynamo.test(p)));
    expect(outside).toEqual([]);
  });
});
