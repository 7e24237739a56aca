import { Lexer, type Token, type Tokens } from 'marked';

// Outgoing text as each channel shows it (Chatwoot's MarkdownRendererService): the stored Markdown rendered to
// WhatsApp markup (*bold*, _italic_, ~strike~, `code`, a link as its URL, `- ` list items, `> ` quotes) or to plain
// text (SMS: the words, a link as "text url", numbered ordered lists). Marked's lexer reads the Markdown (GFM:
// `~~strike~~`), so emphasis, nesting and escapes follow CommonMark as Chatwoot's CommonMarker does.

type Style = 'whatsapp' | 'plain' | 'telegram';

/** Telegram's HTML mode takes `<`, `>` and `&` only as entities. */
const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const html = (style: Style, s: string) => (style === 'telegram' ? escapeHtml(s) : s);
/** Telegram's HTML tag around what `inner` writes. */
function tag(out: Out, name: string, inner: () => void, attrs = ''): void {
  out.put(`<${name}${attrs}>`);
  inner();
  out.put(`</${name}>`);
}

class Out {
  text = '';
  put(s: string) {
    this.text += s;
  }
  /** A new line unless one was just started (CommonMarker's `cr`). */
  cr() {
    if (this.text && !this.text.endsWith('\n')) this.text += '\n';
  }
}

function inline(tokens: Token[] | undefined, style: Style, out: Out): void {
  for (const t of tokens ?? []) {
    switch (t.type) {
      case 'strong':
        if (style === 'telegram') {
          tag(out, 'b', () => inline((t as Tokens.Strong).tokens, style, out));
          break;
        }
        if (style === 'whatsapp') out.put('*');
        inline((t as Tokens.Strong).tokens, style, out);
        if (style === 'whatsapp') out.put('*');
        break;
      case 'em':
        if (style === 'telegram') {
          tag(out, 'i', () => inline((t as Tokens.Em).tokens, style, out));
          break;
        }
        if (style === 'whatsapp') out.put('_');
        inline((t as Tokens.Em).tokens, style, out);
        if (style === 'whatsapp') out.put('_');
        break;
      case 'del':
        if (style === 'telegram') {
          tag(out, 's', () => inline((t as Tokens.Del).tokens, style, out));
          break;
        }
        if (style === 'whatsapp') out.put('~');
        inline((t as Tokens.Del).tokens, style, out);
        if (style === 'whatsapp') out.put('~');
        break;
      case 'codespan':
        if (style === 'telegram') {
          out.put(`<code>${escapeHtml((t as Tokens.Codespan).text)}</code>`);
          break;
        }
        out.put(style === 'whatsapp' ? `\`${(t as Tokens.Codespan).text}\`` : (t as Tokens.Codespan).text);
        break;
      case 'link': {
        const link = t as Tokens.Link;
        if (style === 'telegram') tag(out, 'a', () => inline(link.tokens, style, out), ` href="${escapeHtml(link.href)}"`);
        else if (style === 'whatsapp') out.put(link.href);
        else {
          inline(link.tokens, style, out);
          if (link.href) out.put(` ${link.href}`);
        }
        break;
      }
      case 'br':
        out.put('\n');
        break;
      case 'text': {
        const text = t as Tokens.Text;
        if (text.tokens?.length) inline(text.tokens, style, out);
        else out.put(html(style, text.text));
        break;
      }
      case 'escape':
        out.put(html(style, (t as Tokens.Escape).text));
        break;
      case 'image':
        out.put(html(style, (t as Tokens.Image).href));
        break;
      default:
        out.put(html(style, 'raw' in t ? String(t.raw) : ''));
    }
  }
}

function block(tokens: Token[], style: Style, out: Out): void {
  for (const t of tokens) {
    switch (t.type) {
      case 'space':
        break;
      case 'paragraph':
      case 'heading':
        inline((t as Tokens.Paragraph).tokens, style, out);
        out.cr();
        break;
      case 'list': {
        const list = t as Tokens.List;
        let n = list.ordered ? Number(list.start || 1) : 0;
        for (const item of list.items) {
          out.put(list.ordered && style === 'plain' ? `${n++}. ` : '- ');
          block(item.tokens, style, out);
          out.cr();
        }
        out.cr();
        break;
      }
      case 'blockquote':
        if (style === 'telegram') {
          tag(out, 'blockquote', () => {
            block((t as Tokens.Blockquote).tokens, style, out);
            out.text = out.text.replace(/\n+$/, '');
          });
          out.cr();
          break;
        }
        if (style === 'whatsapp') out.put('> ');
        block((t as Tokens.Blockquote).tokens, style, out);
        out.cr();
        break;
      case 'code':
        if (style === 'telegram') {
          out.put(`<pre>${escapeHtml((t as Tokens.Code).text)}</pre>`);
          out.cr();
          break;
        }
        out.put(style === 'whatsapp' ? `\`\`\`${(t as Tokens.Code).text}\`\`\`` : `${(t as Tokens.Code).text}\n`);
        out.cr();
        break;
      case 'hr':
        out.put('\n');
        break;
      case 'text': {
        const text = t as Tokens.Text;
        if (text.tokens?.length) inline(text.tokens, style, out);
        else out.put(text.text);
        break;
      }
      default:
        out.put(html(style, 'raw' in t ? String(t.raw) : ''));
        out.cr();
    }
  }
}

function render(markdown: string | null, style: Style): string {
  if (!markdown) return markdown ?? '';
  const out = new Out();
  block(Lexer.lex(markdown, { gfm: true }), style, out);
  return out.text.replace(/\n+$/, '');
}

/** WhatsApp markup (WhatsApp channels, Twilio's WhatsApp medium). */
export const whatsappMarkup = (markdown: string | null) => render(markdown, 'whatsapp');

/** Telegram's HTML (`parse_mode=HTML`): b, i, s, a, code, pre, blockquote; everything else escaped. */
export const telegramHtml = (markdown: string | null) => render(markdown, 'telegram');

/** Plain text (SMS). */
export const plainText = (markdown: string | null) => render(markdown, 'plain');
