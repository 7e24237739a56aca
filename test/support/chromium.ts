import { existsSync } from 'node:fs';
import { beforeEach } from 'vitest';

// The widget's browser tests drive a real Chromium (playwright-core brings no browser of its own).

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const missing = existsSync(CHROMIUM)
  ? undefined
  : `no Chromium at ${CHROMIUM}. Install it (Debian/Ubuntu: sudo apt-get install chromium) or set CHROMIUM_PATH to a Chromium or Chrome executable`;

/**
 * For a describe block of browser tests: without Chromium each of its tests is skipped, with the reason
 * (the run's end lists them, see skip-report.ts), never failed. Returns the executable, or undefined when
 * there is none: the block's beforeAll and afterAll then do nothing.
 */
export function chromiumForSuite(): string | undefined {
  beforeEach(({ skip }) => skip(missing !== undefined, missing));
  return missing ? undefined : CHROMIUM;
}
