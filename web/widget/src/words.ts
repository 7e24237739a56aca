import { CHAT, localeOf } from './i18n.ts';
import { params } from './page.ts';

/** The words of the widget's locale (`locale` parameter, `set-locale`). */
export let t = CHAT[localeOf(params.get('locale'))];

export function setLocale(locale: string) {
  t = CHAT[localeOf(locale)];
  document.documentElement.lang = locale;
}
