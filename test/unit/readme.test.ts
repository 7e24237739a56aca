import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderReadme } from '../../scripts/docs.ts';
import { routes } from '../../infra/routes.ts';

describe('README', () => {
  const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');

  it('lists exactly the route table (run `npm run docs` after changing infra/routes.ts)', () => {
    expect(readme).toBe(renderReadme(readme));
    for (const r of routes) expect(readme, r.path).toContain(`\`${r.path}\``);
  });

  it('shows the two commands a newcomer runs', () => {
    expect(readme).toContain('npm install && npm start');
    expect(readme).toContain('npm test');
  });
});
