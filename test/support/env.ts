import { resetConfig } from '#shared/config.ts';
import { reloadKeyring } from '#shared/crypto/tokens.ts';

/**
 * Sets environment variables for one file's tests and returns what puts every one of them back.
 * Files of a worker share one process (and its runtime, whose functions read this environment): a file that
 * changes a setting and leaves it changed breaks the files after it (a token key left behind makes every
 * secret the runtime sealed unreadable). `undefined` removes a variable.
 */
export function overrideEnv(vars: Record<string, string | undefined>): () => void {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    resetConfig();
    reloadKeyring();
  };
  apply(vars);
  return () => apply(saved);
}
