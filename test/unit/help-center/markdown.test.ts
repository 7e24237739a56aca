import { describe, expect, it } from 'vitest';
import { articleHtml } from '#shared/domain/help-center/markdown.ts';
import { articleSlug, normalizeConfig } from '#shared/domain/help-center/service.ts';
import { matchesQuery, parameterize, searchTerms } from '#shared/domain/help-center/text.ts';

describe('article Markdown', () => {
  it('renders GFM: headings, emphasis, lists, tables, code, links and images', async () => {
    const html = await articleHtml(
      '## Steps\n\n1. **Bold** and _em_\n- [x] done\n\n| a | b |\n|---|:-:|\n| 1 | 2 |\n\n```js\nlet x = 1 < 2;\n```\n\n[site](https://example.com) ![logo](https://example.com/l.png)',
    );
    expect(html).toContain('<h2>Steps</h2>');
    expect(html).toContain('<strong>Bold</strong>');
    expect(html).toContain('<em>em</em>');
    expect(html).toContain('<table>');
    expect(html).toContain('<td align="center">2</td>');
    expect(html).toContain('<code class="language-js">let x = 1 &lt; 2;\n</code>');
    expect(html).toContain('<a href="https://example.com" rel="nofollow noopener ugc">site</a>');
    expect(html).toContain('<img src="https://example.com/l.png" alt="logo" />');
    expect(html).toContain('<input checked disabled type="checkbox" />');
  });

  it.each([
    ['script', '<script>alert(1)</script>x', ['<script', 'alert(1)']],
    ['event handler', '<img src="https://e.com/a.png" onerror="alert(1)">', ['onerror']],
    ['javascript: link', '[a](javascript:alert(1)) <a href="JaVaScRiPt:alert(1)">b</a>', ['javascript', 'alert']],
    ['entity-encoded javascript:', '<a href="&#106;avascript:alert(1)">c</a>', ['avascript', 'alert']],
    ['iframe', '<iframe src="https://evil.example"></iframe><iframe srcdoc="<script>1</script>"></iframe>', ['<iframe', 'srcdoc']],
    [
      'svg and math',
      '<svg onload="alert(1)"><script>1</script></svg><math><mi xlink:href="javascript:alert(1)">x</mi></math>',
      ['<svg', 'onload', 'javascript'],
    ],
    [
      'style and form',
      '<style>*{}</style><form action="https://e.com"><input name="a"><button>go</button></form>',
      ['<style', '<form', 'name="a"', '<button'],
    ],
    ['object and embed', '<object data="x.swf"></object><embed src="x.swf">', ['<object', '<embed']],
    ['data: URLs', '![x](data:image/svg+xml;base64,PHN2Zz4=) [y](data:text/html,<script>1</script>)', ['data:']],
    ['meta refresh and base', '<meta http-equiv="refresh" content="0;url=https://e.com"><base href="https://e.com/">', ['<meta', '<base']],
    ['protocol-relative image', '<img src="//evil.example/x.png">', ['//evil.example']],
  ])('removes %s', async (_name, markdown, banned) => {
    const html = (await articleHtml(markdown)).toLowerCase();
    for (const b of banned) expect(html).not.toContain(b.toLowerCase());
  });
});

describe('help center text rules', () => {
  it("parameterizes like Rails (accents folded, words joined by '-')", () => {
    expect(parameterize('  Héllo, Wörld! 2.0 ')).toBe('hello-world-2-0');
    expect(parameterize('日本語')).toBe('');
    expect(articleSlug('How to: Pay?', 1_700_000_000_500)).toBe('1700000000-how-to-pay');
    expect(articleSlug('日本語', 1_700_000_000_000)).toBe('1700000000');
  });

  it('matches when every query word begins a word of the article', () => {
    const a = { title: 'Install the app', description: 'Setting up', content: 'Download the **installer** and run it.' };
    expect(searchTerms('  Inst  DOWNL ')).toEqual(['inst', 'downl']);
    expect(matchesQuery(a, searchTerms('inst downl'))).toBe(true);
    expect(matchesQuery(a, searchTerms('setting'))).toBe(true);
    expect(matchesQuery(a, searchTerms('stall'))).toBe(false);
    expect(matchesQuery(a, searchTerms('install missing'))).toBe(false);
    expect(matchesQuery(a, [])).toBe(true);
  });

  it("normalizes a portal's locales as Chatwoot's normalize_config", () => {
    expect(normalizeConfig(undefined)).toEqual({ allowed_locales: ['en'], default_locale: 'en' });
    expect(normalizeConfig({ default_locale: 'fr' })).toEqual({ allowed_locales: ['fr'], default_locale: 'fr' });
    expect(normalizeConfig({ allowed_locales: ['es', 'en', 'es'] })).toEqual({ allowed_locales: ['es', 'en'], default_locale: 'es' });
    expect(normalizeConfig({ allowed_locales: ['de'] }, { allowed_locales: ['en'], default_locale: 'en' })).toEqual({
      allowed_locales: ['de'],
      default_locale: 'de',
    });
    expect(() => normalizeConfig({ allowed_locales: ['en'], default_locale: 'fr' })).toThrow(/not one of the allowed locales/);
  });
});
