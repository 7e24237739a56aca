import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, sourceFiles } from './imports.ts';

// docs/architecture.md#imports-define-only: a module of shared/ only defines things when imported (the function
// bundles leave out a module whose exports a function does not use). Read as text: the code is formatted (Biome), so a
// statement starts at column 0 and what continues it is indented or closes it.

/** Modules whose top level acts on their own state (docs/architecture.md#imports-define-only). */
const OWN_STATE = new Set(['shared/http/auth.ts', 'shared/realtime/broadcast.ts', 'shared/outbound/address-guard.ts']);

const DECLARATION =
  /^(import|export|const|let|var|function|async function|class|abstract class|type|interface|enum|declare|\/\/|\/\*|\*|[\])}>])|^$/;

/** The text with template literals blanked (their lines may start at column 0). */
const withoutTemplates = (text: string) => text.replace(/`(?:\\[\s\S]|[^`\\])*`/g, (t) => t.replace(/[^\n]/g, ' '));

function statementsThatAct(file: string): string[] {
  return withoutTemplates(readFileSync(join(ROOT, file), 'utf8'))
    .split('\n')
    .filter((line) => !/^\s/.test(line) && !DECLARATION.test(line.trim()));
}

describe('shared modules define only', () => {
  const files = sourceFiles('shared');

  it('finds the modules', () => {
    expect(files.length).toBeGreaterThan(300);
    expect(files).toContain('shared/config.ts');
  });

  it('no module has a top-level statement other than a declaration (but those acting on their own state)', () => {
    const acting = files.filter((f) => !OWN_STATE.has(f)).flatMap((f) => statementsThatAct(f).map((line) => `${f}: ${line}`));
    expect(acting).toEqual([]);
  });

  it('the modules acting on their own state still do (else they leave the list)', () => {
    for (const f of OWN_STATE) expect(statementsThatAct(f).length, f).toBeGreaterThan(0);
  });

  it('no file imports a shared module for its effects alone', () => {
    const bare = sourceFiles('shared', 'functions').filter((f) => /^\s*import\s+'[^']+';/m.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(bare).toEqual([]);
  });
});
