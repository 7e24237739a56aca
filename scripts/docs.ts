import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../infra/build.ts';
import { functionName, methodsOf, routes } from '../infra/routes.ts';
import { buildOpenApi, OPENAPI_FILE, renderOpenApi } from './openapi.ts';

// npm run docs: rewrites the README's route table from infra/routes.ts (the one list of endpoints) and the
// OpenAPI document (scripts/openapi.ts) to openapi.json.

export function routeTable(): string {
  const rows = routes.map(
    (r) => `| ${methodsOf(r).join(', ')} | \`${r.path}\` | ${r.api} | ${r.access} | \`${r.handler}\` (${functionName(r)}) |`,
  );
  return ['| method | path | interface | access class | handler (function) |', '|---|---|---|---|---|', ...rows].join('\n');
}

export function renderReadme(readme: string): string {
  return readme.replace(/(<!-- routes:start -->\n)[\s\S]*?(<!-- routes:end -->)/, `$1${routeTable()}\n$2`);
}

const file = join(ROOT, 'README.md');
if (process.argv[1]?.endsWith('docs.ts')) {
  writeFileSync(file, renderReadme(readFileSync(file, 'utf8')));
  process.stdout.write(`README.md: ${routes.length} routes\n`);
  const doc = await buildOpenApi();
  writeFileSync(OPENAPI_FILE, renderOpenApi(doc));
  process.stdout.write(`openapi.json: ${Object.keys(doc.paths as object).length} paths\n`);
}
