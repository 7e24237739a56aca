import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Where a CDK app finds the function code. Free of esbuild: the published construct ships its bundles
// prebuilt and only looks them up.

/**
 * One built function: its asset folder (holding `index.mjs`, handler `index.handler`, its `chunks/` and, built a pass per
 * function, the lazy SDK clients of `lazy/`) and its size.
 */
export interface FunctionBundle {
  /** Absolute path of the folder to hand to `lambda.Code.fromAsset`. */
  dir: string;
  /** Bytes a cold start loads: `index.mjs` and the chunks it imports statically (minified, AWS SDK included). */
  bytes: number;
  /** Bytes in the folder: also what loads on first use (dynamic imports: chunks, lazy clients). Unknown for prebuilt bundles. */
  deployedBytes?: number;
}

/** functionName → bundle. Route functions are named by `functionName(route)`, event functions by EVENT_FUNCTION_NAMES. */
export type FunctionBundles = Record<string, FunctionBundle>;

/** The bundles in `dir`: every sub-folder holding an `index.mjs` (`bytes`: that file's size alone). */
export function bundlesIn(dir: string): FunctionBundles {
  if (!existsSync(dir)) return {};
  const bundles: FunctionBundles = {};
  for (const name of readdirSync(dir)) {
    const file = join(dir, name, 'index.mjs');
    if (existsSync(file)) bundles[name] = { dir: join(dir, name), bytes: statSync(file).size };
  }
  return bundles;
}

/**
 * Folder of the bundles shipped with the published package: `functions/` beside the package's compiled
 * module, so it is found wherever the package is installed (never relative to this repository).
 */
export const PACKAGED_BUNDLES_DIR = fileURLToPath(new URL('./functions/', import.meta.url));
