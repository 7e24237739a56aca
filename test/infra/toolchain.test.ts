import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../infra/build.ts';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const major = (version: string) => Number(version.replace(/^[^\d]*/, '').split('.')[0]);

describe('Node 22 everywhere', () => {
  it('runs the tests on Node 22 or later, whatever the system Node is', () => {
    // npm scripts put node_modules/.bin first on PATH, where the pinned `node` package links its binary.
    expect(major(process.versions.node)).toBeGreaterThanOrEqual(22);
  });

  it('pins a Node 22 binary from the npm registry that satisfies engines', () => {
    expect(pkg.engines.node).toBe('>=22');
    expect(pkg.devDependencies.node).toMatch(/^22\.\d+\.\d+$/);
    expect(major(pkg.devDependencies['@types/node'])).toBe(22);
  });

  it('lets CI fetch the same Node when the machine has an older one', () => {
    const ci = readFileSync(join(ROOT, '.ci/run'), 'utf8');
    expect(ci).toContain('devDependencies.node');
    expect(ci.indexOf('devDependencies.node')).toBeLessThan(ci.indexOf('\nnpm ci '));
  });
});
