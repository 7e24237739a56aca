// Mail HTML, both ways: what an incoming mail's HTML may keep when it is shown, and an agent's Markdown as a
// reply's HTML (Chatwoot renders it with CommonMarker, raw HTML left out). Both libraries load on first use (dynamic
// imports): the dispatcher and the channel functions reach this module but render mail HTML rarely.

/**
 * The HTML shown to agents: scripts, styles, event handlers, forms and frames removed; links and images kept
 * (`cid:` and data images too, which the inline embedding replaces).
 */
export async function sanitizeMailHtml(html: string): Promise<string> {
  const { default: sanitizeHtml } = await import('sanitize-html');
  return sanitizeHtml(html, {
    allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'span', 'font', 'center', 'u', 's'],
    allowedAttributes: {
      '*': ['style', 'class', 'dir', 'align', 'width', 'height', 'bgcolor', 'color', 'valign', 'colspan', 'rowspan'],
      a: ['href', 'name', 'target', 'title'],
      img: ['src', 'alt', 'title', 'width', 'height'],
      font: ['face', 'size', 'color'],
    },
    allowedSchemes: ['http', 'https', 'mailto', 'cid', 'tel'],
    allowedSchemesByTag: { img: ['http', 'https', 'cid', 'data'] },
  });
}

/** The message's Markdown as the mail's HTML (GFM; raw HTML in it is sanitised away like an incoming mail's). */
export async function replyHtml(content: string): Promise<string> {
  if (!content) return '';
  const { marked } = await import('marked');
  return sanitizeMailHtml(marked.parse(content, { async: false, gfm: true, breaks: true }));
}
