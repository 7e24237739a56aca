import { ARTICLES } from './articles-i18n.ts';
import { CHAT, localeOf } from './i18n.ts';
import { params } from './page.ts';

/** The locale the widget was asked for (`locale` parameter, `set-locale`), as given. */
export let locale = params.get('locale') ?? '';

/** The words of the widget's locale. */
export let t = CHAT[localeOf(locale)];
/** The help-center articles' words of the widget's locale. */
export let at = ARTICLES[localeOf(locale)];

export function setLocale(next: string) {
  locale = next;
  t = CHAT[localeOf(next)];
  at = ARTICLES[localeOf(next)];
  document.documentElement.lang = next;
}
