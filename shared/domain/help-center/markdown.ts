// An article's Markdown as the HTML its public page shows. Rendered by marked (GFM) and then sanitised by
// sanitize-html with a strict allow-list: no script, style, iframe, object, form or event-handler
// attribute survives, and links and images keep only http(s) (links also mailto and tel) addresses, so
// nothing an article holds runs in a visitor's browser. The pages also send a Content-Security-Policy that
// allows no script at all. Both libraries load on first use.

export async function articleHtml(markdown: string): Promise<string> {
  const [{ marked }, { default: sanitizeHtml }] = await Promise.all([import('marked'), import('sanitize-html')]);
  const raw = marked.parse(markdown, { async: false, gfm: true });
  return sanitizeHtml(raw, {
    allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'h1', 'h2', 'del', 'input'],
    allowedAttributes: {
      a: ['href', 'name', 'title', 'rel'],
      img: ['src', 'alt', 'title', 'width', 'height'],
      code: ['class'],
      th: ['align'],
      td: ['align'],
      // GFM task lists.
      input: ['type', 'checked', 'disabled'],
    },
    allowedClasses: { code: [/^language-[\w-]+$/] },
    allowedSchemes: ['http', 'https', 'mailto', 'tel'],
    allowedSchemesByTag: { img: ['http', 'https'] },
    allowProtocolRelative: false,
    exclusiveFilter: (frame) => frame.tag === 'input' && frame.attribs.type !== 'checkbox',
    transformTags: {
      a: (tagName, attribs) => ({ tagName, attribs: { ...attribs, rel: 'nofollow noopener ugc' } }),
      input: (tagName, attribs) => ({ tagName, attribs: { ...attribs, disabled: '' } }),
    },
  });
}
