import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildWidget, OUT } from '../../web/widget/build.ts';

// The served widget is the committed build module; it must be what the sources build to, and small.

describe('widget build', () => {
  const { assets, source } = buildWidget();

  it('is up to date (run `npm run widget:build` after changing web/widget/src)', () => {
    expect(readFileSync(OUT, 'utf8')).toBe(source);
  });

  it('stays within its size budget: loader ≤ 10 KB, chat page ≤ 60 KB gzip', () => {
    const [sdk, script, styles] = assets;
    expect(sdk.name).toBe('sdk.js');
    expect(sdk.gzipBytes).toBeLessThanOrEqual(10 * 1024);
    expect(script.gzipBytes + styles.gzipBytes).toBeLessThanOrEqual(60 * 1024);
  });

  it('names the chat page files by their content', () => {
    expect(assets[1].name).toMatch(/^widget-[0-9a-f]{12}\.js$/);
    expect(assets[2].name).toMatch(/^widget-[0-9a-f]{12}\.css$/);
  });
});
