import { marked } from 'marked';
import sanitizeHtml from 'sanitize-html';

// Mail HTML, both ways: what an incoming mail's HTML may keep when it is shown, and an agent's Markdown as a
// reply's HTML (Chatwoot renders it with CommonMarker, raw HTML left out).

/**
 * The HTML shown to agents: scripts, styles, event handlers, forms and frames removed; links and images kept
 * (`cid:` and data images too, which the inline embedding replaces).
 */
export function sanitizeMailHtml(html: string): string {
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
export const replyHtml = (content: string): string =>
  content ? sanitizeMailHtml(marked.parse(content, { async: false, gfm: true, breaks: true })) : '';
