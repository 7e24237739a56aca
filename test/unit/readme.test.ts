import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderRoutesDoc, ROUTES_DOC } from '../../scripts/docs.ts';
import { routes } from '../../infra/routes.ts';

describe('docs/routes.md', () => {
  const doc = readFileSync(ROUTES_DOC, 'utf8');

  it('lists exactly the route table (run `npm run docs` after changing infra/routes.ts)', () => {
    expect(doc).toBe(renderRoutesDoc());
    for (const r of routes) expect(doc, r.path).toContain(`\`${r.path}\``);
  });
});

describe('README', () => {
  const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');

  it('shows the two commands a newcomer runs', () => {
    expect(readme).toContain('npm install && npm start');
    expect(readme).toContain('npm test');
  });

  it('stays a map: at most 200 lines', () => {
    expect(readme.split('\n').length - (readme.endsWith('\n') ? 1 : 0)).toBeLessThanOrEqual(200);
  });
});
