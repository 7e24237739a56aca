import type { publicArticleJson } from '#shared/domain/help-center/view.ts';
import { h, root } from './dom.ts';
import type { ChannelConfig } from './protocol.ts';
import { at, locale } from './words.ts';

// The help center in the widget, as Chatwoot's: when the inbox names a portal (`portal` in the widget's
// settings), its most read articles in the widget's locale (else the portal's default), a search, and an
// article viewer that frames the article's page in its plain layout. The articles come from the portal's
// public `articles.json`, published articles only.

type Portal = NonNullable<ChannelConfig['portal']>;
type Article = ReturnType<typeof publicArticleJson>;

const heading = h('summary');
const search = h('input', { type: 'search', class: 'cw-articles-search', maxlength: '200' });
const list = h('ul', { class: 'cw-articles-list' });
const none = h('p', { class: 'cw-articles-none', hidden: true });
const all = h('a', { class: 'cw-articles-all', target: '_blank', rel: 'noopener' });
/** The block above the conversation (folded once the visitor has messages). */
export const articles = h('details', { class: 'cw-articles', hidden: true, open: true }, heading, search, list, none, all);

const back = h('button', { type: 'button', class: 'cw-viewer-back' });
// Sandboxed besides the page's own policy: nothing in it may run script; its links may open new tabs.
const frame = h('iframe', { class: 'cw-viewer-frame', sandbox: 'allow-popups allow-popups-to-escape-sandbox' });
/** The article viewer: over the whole chat page, with a way back. */
export const viewer = h('section', { class: 'cw-viewer', hidden: true }, back, frame);
back.addEventListener('click', () => {
  viewer.hidden = true;
  frame.removeAttribute('src');
});

let portal: Portal | undefined;
let portalLocale = '';
let popular: Article[] = [];
let searchRun = 0;

export function articleTexts() {
  heading.textContent = at.popular;
  search.placeholder = at.search;
  search.setAttribute('aria-label', at.search);
  none.textContent = at.none;
  all.textContent = at.viewAll;
  back.textContent = `‹ ${at.back}`;
}

/** Chatwoot's rule: the widget's locale when the portal has exactly it, otherwise the portal's default. */
const localeFor = (p: Portal, wanted: string) => (p.config.allowed_locales.includes(wanted) ? wanted : p.config.default_locale);

async function fetchArticles(query: Record<string, string>): Promise<Article[]> {
  if (!portal) return [];
  const qs = new URLSearchParams({ ...query, status: '1', per_page: '6' });
  const res = await fetch(`/hc/${encodeURIComponent(portal.slug)}/${encodeURIComponent(portalLocale)}/articles.json?${qs}`);
  if (!res.ok) throw new Error(`articles: ${res.status}`);
  return ((await res.json()) as { payload: Article[] }).payload;
}

function drawList(items: Article[]) {
  list.replaceChildren(
    ...items.map((a) => {
      const open = h('button', { type: 'button', class: 'cw-article' }, a.title);
      open.addEventListener('click', () => openArticle(a));
      return h('li', {}, open);
    }),
  );
  none.hidden = items.length > 0;
}

function openArticle(a: Article) {
  const theme = root.dataset.theme === 'dark' ? 'dark' : 'light';
  frame.title = a.title;
  frame.src = `${a.link}?${new URLSearchParams({ show_plain_layout: 'true', theme })}`;
  viewer.hidden = false;
  back.focus();
}

let shownFor = '';

/**
 * Shows the portal's popular articles (nothing when the inbox has no portal or the portal no articles in the
 * locale); fetched once a portal and locale.
 */
export async function loadArticles(c: ChannelConfig) {
  portal = c.portal ?? undefined;
  if (!portal) {
    articles.hidden = true;
    return;
  }
  portalLocale = localeFor(portal, locale || c.locale || '');
  const key = `${portal.slug}/${portalLocale}`;
  if (key === shownFor) return;
  shownFor = key;
  all.href = `/hc/${encodeURIComponent(portal.slug)}/${encodeURIComponent(portalLocale)}`;
  try {
    popular = await fetchArticles({ sort: 'views', page: '1' });
  } catch (err) {
    shownFor = '';
    throw err;
  }
  search.value = '';
  drawList(popular);
  articles.hidden = !popular.length;
}

/** Folds the block once the visitor has a conversation to read (the visitor can open it again). */
let folded = false;
export function foldArticles(hasMessages: boolean) {
  if (hasMessages && !folded) articles.open = false;
  folded ||= hasMessages;
}

let timer: ReturnType<typeof setTimeout> | undefined;
search.addEventListener('input', () => {
  clearTimeout(timer);
  timer = setTimeout(async () => {
    const q = search.value.trim();
    const run = ++searchRun;
    const found = q ? await fetchArticles({ query: q }).catch(() => []) : popular;
    // An answer to an older query never replaces a newer one's.
    if (run === searchRun) drawList(found);
  }, 250);
});
