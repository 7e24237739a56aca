import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildFunctions, type FunctionBundles } from '../../infra/build.ts';

let built: FunctionBundles | undefined;

/** Every function bundle, built once per test worker (test files of a worker share modules). */
export function testBundles(): FunctionBundles {
  built ??= buildFunctions(join(mkdtempSync(join(tmpdir(), 'bundles-')), 'functions'));
  return built;
}
