import { decode, encode, tokenKey, type FromChat, type ToChat } from './protocol.ts';
import { store } from './storage.ts';
import { LOADER, localeOf } from './i18n.ts';

// The loader (`/packs/js/sdk.js`): the page calls `window.chatwootSDK.run({websiteToken, baseUrl})`
// (Chatwoot's snippet); this draws the launcher bubble and the chat page's iframe, and gives the page
// `window.$chatwoot`. Commands given before the chat page has loaded wait for it. The elements carry
// Chatwoot's ids and classes (`#chatwoot_live_chat_widget`, `.woot-widget-holder`, `.woot--bubble-holder`,
// `.woot-widget-bubble`, `.woot--hide`, `.woot-hidden`, …) and the visitor's token is Chatwoot's
// `cw_conversation` cookie, so a site's styles and scripts written for Chatwoot's widget work on this one.

interface Settings {
  position?: 'left' | 'right';
  locale?: string;
  useBrowserLanguage?: boolean;
  darkMode?: 'light' | 'auto' | 'dark';
  hideMessageBubble?: boolean;
  launcherTitle?: string;
  type?: 'standard' | 'expanded_bubble';
  /** The cookies' domain, for a widget shared by subdomains (Chatwoot's `baseDomain`). */
  baseDomain?: string;
}

declare global {
  interface Window {
    chatwootSDK: { run: (o: { websiteToken: string; baseUrl?: string }) => void };
    chatwootSettings?: Settings;
    $chatwoot?: ReturnType<typeof makeApi>;
  }
}

const CSS = `.woot-widget-holder{position:fixed!important;z-index:2147483000!important;bottom:104px;width:400px!important;height:calc(90% - 84px);max-height:640px!important;min-height:250px!important;overflow:hidden!important;border-radius:16px;background:#fff;box-shadow:0 5px 40px rgba(0,0,0,.16);transition:opacity .2s,transform .25s}
.woot-widget-holder iframe{border:0;width:100%!important;height:100%!important;max-height:100vh!important;color-scheme:normal}
.woot-elements--right{right:20px}.woot-elements--left{left:20px}
.woot-widget-holder.woot-widget--without-bubble{bottom:20px!important}
.woot-widget-bubble{position:fixed;bottom:20px;z-index:2147483000!important;width:64px;height:64px;padding:0;border:0;border-radius:100px;cursor:pointer;color:#fff;background:#1f93ff;box-shadow:0 8px 24px rgba(0,0,0,.16)!important;display:flex;align-items:center;justify-content:center;transition:transform .3s,opacity .1s}
.woot-widget-bubble:hover{transform:scale(1.05)}.woot-widget-bubble.woot-widget--expanded{width:auto;height:48px;border-radius:30px;padding:0 20px;gap:8px;font:500 16px system-ui,sans-serif}
.woot--hide{visibility:hidden!important;opacity:0;pointer-events:none;z-index:-1!important}.woot-widget-holder.woot--hide{transform:translateY(40px)}
.woot-hidden{display:none!important}
.cw-badge{position:absolute;top:-4px;right:-4px;min-width:22px;height:22px;padding:0 6px;border-radius:11px;background:#e5484d;color:#fff;font:700 12px/22px system-ui,sans-serif}
.cw-campaign{position:fixed;bottom:104px;z-index:2147483000;max-width:300px;padding:12px 14px;border:0;border-radius:12px;background:#fff;color:#1f2d3d;box-shadow:0 4px 20px rgba(0,0,0,.18);font:14px/1.4 system-ui,sans-serif;text-align:left;cursor:pointer}
.cw-campaign b{display:block;margin-bottom:4px}
@media (max-width:667px){.woot-widget-holder{width:100%!important;height:100%;max-height:none!important;top:0;bottom:0;left:0!important;right:0!important;border-radius:0}.woot-widget-bubble.woot--close{visibility:hidden!important}}`;

const BUBBLE =
  '<svg viewBox="0 0 24 24" width="28" height="28" aria-hidden="true"><path fill="currentColor" d="M12 3C6.5 3 2 6.9 2 11.7c0 2.4 1.1 4.6 3 6.2L4 22l4.5-2.3c1.1.3 2.3.5 3.5.5 5.5 0 10-3.9 10-8.6S17.5 3 12 3z"/></svg>';
const CLOSE =
  '<svg viewBox="0 0 24 24" width="24" height="24" aria-hidden="true"><path stroke="currentColor" stroke-width="2.5" stroke-linecap="round" d="M6 6l12 12M18 6 6 18"/></svg>';

/** Chatwoot's cookie of the visitor's auth token, and of the last `setUser` (a fingerprint, per inbox). */
const AUTH = 'cw_conversation';
const userCookie = () => `cw_user_${websiteToken}`;
const HIDE = 'woot--hide';

let holder: HTMLDivElement | undefined;
let frame: HTMLIFrameElement | undefined;
let bubbles: HTMLDivElement | undefined;
let openBtn: HTMLButtonElement | undefined;
let closeBtn: HTMLButtonElement | undefined;
let badge: HTMLSpanElement | undefined;
let card: HTMLButtonElement | undefined;
let loaded = false;
let queue: ToChat[] = [];
let origin = '';
let websiteToken = '';
let baseUrl = '';

const settings = (): Settings => window.chatwootSettings ?? {};
/** The loader's words, in the locale of the settings (or the browser's) or of `setLocale`. */
let txt = LOADER.en;
let unread = 0;

function getCookie(name: string): string | undefined {
  const hit = document.cookie.split('; ').find((c) => c.startsWith(`${name}=`));
  return hit ? decodeURIComponent(hit.slice(name.length + 1)) : undefined;
}

/** Sets (a year, as Chatwoot) or, without a value, removes a cookie of the site. */
function setCookie(name: string, value?: string) {
  const domain = settings().baseDomain ? `;domain=${settings().baseDomain}` : '';
  // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is asynchronous and missing from older Safari; this is one plain cookie.
  document.cookie = `${name}=${encodeURIComponent(value ?? '')};path=/;SameSite=Lax;max-age=${value === undefined ? 0 : 31536000}${domain}`;
}

/** A short fingerprint of what `setUser` sent (FNV-1a), so the same call on every page is sent once. */
function fingerprint(s: string) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return (h >>> 0).toString(36);
}

function post(m: ToChat) {
  if (!loaded || !frame?.contentWindow) queue.push(m);
  else frame.contentWindow.postMessage(encode(m), origin);
}

const fire = (name: string, detail: unknown = null) => window.dispatchEvent(new CustomEvent(name, { detail }));

function setOpen(open: boolean) {
  const api = window.$chatwoot!;
  if (!holder) return;
  api.isOpen = open;
  holder.classList.toggle(HIDE, !open);
  openBtn!.classList.toggle(HIDE, open);
  closeBtn!.classList.toggle(HIDE, !open);
  openBtn!.setAttribute('aria-expanded', String(open));
  if (open) card?.remove();
  drawBadge();
  post({ event: 'toggle-open', isOpen: open });
}

function drawLauncher() {
  if (!openBtn || !closeBtn) return;
  const wide = settings().type === 'expanded_bubble';
  openBtn.classList.toggle('woot-widget--expanded', wide);
  openBtn.innerHTML = BUBBLE + (wide ? '<div id="woot-widget--expanded__text"></div>' : '');
  const text = openBtn.querySelector('div');
  if (text) text.textContent = settings().launcherTitle || txt.chatWithUs;
  openBtn.setAttribute('aria-label', txt.open);
  closeBtn.setAttribute('aria-label', txt.close);
  if (badge) openBtn.append(badge);
}

function onFrameMessage(e: MessageEvent) {
  if (e.origin !== origin || e.source !== frame?.contentWindow) return;
  const m = decode<FromChat>(e.data);
  if (!m) return;
  const api = window.$chatwoot!;
  switch (m.event) {
    case 'loaded':
      loaded = true;
      api.hasLoaded = true;
      setCookie(AUTH, m.config.authToken);
      for (const b of [openBtn, closeBtn]) if (b) b.style.background = m.config.channelConfig.widget_color || '#1f93ff';
      for (const q of queue.splice(0)) post(q);
      post({ event: 'toggle-open', isOpen: api.isOpen });
      // Chatwoot's page hears it once: not again when `reset()` reloads the chat.
      if (!api.resetTriggered) fire('chatwoot:ready');
      return;
    case 'setAuthCookie':
      setCookie(AUTH, m.data.widgetAuthToken);
      return;
    case 'setUnreadMode':
      unread = m.unreadMessageCount;
      drawBadge();
      return;
    case 'campaign':
      showCard(m.message, m.senderName);
      return;
    case 'campaignDone':
      card?.remove();
      return;
    case 'onEvent':
      if (m.eventIdentifier.startsWith('chatwoot:')) fire(m.eventIdentifier, m.data);
      return;
    case 'error':
      fire('chatwoot:error', m.data);
      if (m.errorType === 'SET_USER_ERROR') setCookie(userCookie());
      return;
    case 'toggleBubble':
    case 'closeWindow':
      setOpen(m.event === 'toggleBubble' ? !api.isOpen : false);
      return;
  }
}

function drawBadge() {
  if (!badge || !openBtn) return;
  badge.textContent = unread > 9 ? '9+' : String(unread);
  badge.hidden = unread === 0 || !!window.$chatwoot?.isOpen;
  badge.setAttribute('aria-label', txt.unread.replace('{n}', String(unread)));
  // Chatwoot's hook for "there are unread messages".
  openBtn.classList.toggle('unread-notification', unread > 0);
}

/** A campaign's message above the launcher; a click opens the chat (which runs the campaign). */
function showCard(message: string, sender: string | null) {
  card?.remove();
  card = document.createElement('button');
  card.type = 'button';
  card.className = 'cw-campaign';
  card.style[window.$chatwoot!.position] = '20px';
  card.setAttribute('aria-label', `${sender ? txt.from.replace('{name}', sender) : ''} ${message}`.trim());
  if (sender) card.append(Object.assign(document.createElement('b'), { textContent: sender }));
  card.append(message);
  card.onclick = () => setOpen(true);
  document.body.append(card);
}

/** The host page's address, for campaign rules (again on in-page navigation). */
const sendUrl = () => post({ event: 'change-url', referrerURL: location.href });

/** The chat page's address, with the visitor's token when the site has one (also the pop-out's). */
function frameUrl() {
  const q = new URLSearchParams({ website_token: websiteToken });
  const api = window.$chatwoot!;
  if (api.locale) q.set('locale', api.locale);
  if (api.darkMode !== 'light') q.set('dark_mode', api.darkMode);
  const token = getCookie(AUTH);
  if (token) q.set('cw_conversation', token);
  return `${baseUrl}/widget?${q}`;
}

const el = <K extends keyof HTMLElementTagNameMap>(tag: K, className: string, id?: string) =>
  Object.assign(document.createElement(tag), { className, ...(id ? { id } : {}) });

function mount() {
  const api = window.$chatwoot!;
  const style = document.createElement('style');
  style.textContent = CSS;
  document.head.append(style);
  const side = `woot-elements--${api.position}`;

  holder = el('div', `woot-widget-holder ${HIDE} ${side}`, 'cw-widget-holder');
  holder.classList.toggle('woot-widget--without-bubble', api.hideMessageBubble);
  frame = el('iframe', '', 'chatwoot_live_chat_widget');
  frame.title = 'Chat window';
  frame.allow = 'clipboard-write';
  frame.src = frameUrl();
  holder.append(frame);

  bubbles = el('div', 'woot--bubble-holder', 'cw-bubble-holder');
  bubbles.classList.toggle('woot-hidden', api.hideMessageBubble);
  openBtn = el('button', `woot-widget-bubble ${side}`);
  closeBtn = el('button', `woot-widget-bubble woot--close ${HIDE} ${side}`);
  closeBtn.innerHTML = CLOSE;
  badge = el('span', 'woot--notification cw-badge');
  badge.hidden = true;
  for (const b of [openBtn, closeBtn]) {
    b.type = 'button';
    b.style.background = '#1f93ff';
    b.onclick = () => setOpen(!api.isOpen);
  }
  drawLauncher();
  bubbles.append(openBtn, closeBtn);
  document.body.append(holder, bubbles);
  setOpen(false);
  sendUrl();
  window.addEventListener('popstate', sendUrl);
  window.addEventListener('hashchange', sendUrl);
}

type DarkMode = 'light' | 'auto' | 'dark';
/** Chatwoot's getDarkMode: anything but light, auto or dark is light. */
const darkModeOf = (m: unknown): DarkMode => (m === 'auto' || m === 'dark' ? m : 'light');

const needsKeys = (o: Record<string, unknown> | undefined) => {
  if (!o || !Object.keys(o).length) throw new Error('Custom attributes should have atleast one key');
};
const needsName = (k: string) => {
  if (!k) throw new Error('Custom attribute is required');
};

function makeApi(token: string, base: string) {
  const s = settings();
  return {
    baseUrl: base,
    baseDomain: s.baseDomain,
    websiteToken: token,
    hasLoaded: false,
    isOpen: false,
    hideMessageBubble: !!s.hideMessageBubble,
    position: s.position === 'left' ? 'left' : ('right' as 'left' | 'right'),
    locale: s.useBrowserLanguage ? navigator.language.replace('-', '_') : s.locale,
    type: s.type === 'expanded_bubble' ? s.type : 'standard',
    launcherTitle: s.launcherTitle || '',
    darkMode: darkModeOf(s.darkMode),
    resetTriggered: false,
    identifier: undefined as string | number | undefined,
    user: undefined as Record<string, unknown> | undefined,
    /** `'open'`, `'close'`, or nothing to switch. */
    toggle(state?: 'open' | 'close') {
      setOpen(state === 'open' ? true : state === 'close' ? false : !this.isOpen);
    },
    /** Hides or shows the launcher (the chat window stays as it is, at the launcher's place when hidden). */
    toggleBubbleVisibility(visibility: 'show' | 'hide') {
      if (visibility !== 'hide' && visibility !== 'show') return;
      this.hideMessageBubble = visibility === 'hide';
      bubbles?.classList.toggle('woot-hidden', this.hideMessageBubble);
      holder?.classList.toggle('woot-widget--without-bubble', this.hideMessageBubble);
    },
    /** The chat in a window of its own, as the same visitor; the widget closes. */
    popoutChatWindow() {
      this.toggle('close');
      window.open(frameUrl(), `webwidget_session_${websiteToken}`, 'resizable=off,width=400,height=600')?.focus();
    },
    setUser(identifier: string | number, user: Record<string, unknown>) {
      if (typeof identifier !== 'string' && typeof identifier !== 'number') throw new Error('Identifier should be a string or a number');
      if (!user || !['avatar_url', 'email', 'name'].some((k) => user[k]))
        throw new Error('User object should have one of the keys [avatar_url, email, name]');
      const seen = fingerprint(JSON.stringify([identifier, user.avatar_url, user.email, user.name, user.identifier_hash]));
      if (getCookie(userCookie()) === seen) return;
      this.identifier = identifier;
      this.user = user;
      post({ event: 'set-user', identifier: String(identifier), user });
      setCookie(userCookie(), seen);
    },
    setCustomAttributes(customAttributes: Record<string, unknown>) {
      needsKeys(customAttributes);
      post({ event: 'set-custom-attributes', customAttributes });
    },
    deleteCustomAttribute(customAttribute = '') {
      needsName(customAttribute);
      post({ event: 'delete-custom-attribute', customAttribute });
    },
    setConversationCustomAttributes(customAttributes: Record<string, unknown>) {
      needsKeys(customAttributes);
      post({ event: 'set-conversation-custom-attributes', customAttributes });
    },
    deleteConversationCustomAttribute(customAttribute = '') {
      needsName(customAttribute);
      post({ event: 'delete-conversation-custom-attribute', customAttribute });
    },
    setLabel(label = '') {
      post({ event: 'set-label', label });
    },
    removeLabel(label = '') {
      post({ event: 'remove-label', label });
    },
    setLocale(locale = 'en') {
      this.locale = locale;
      txt = LOADER[localeOf(locale)];
      drawLauncher();
      drawBadge();
      post({ event: 'set-locale', locale });
    },
    setColorScheme(darkMode: DarkMode = 'light') {
      this.darkMode = darkModeOf(darkMode);
      post({ event: 'set-color-scheme', darkMode: this.darkMode });
    },
    /**
     * Forgets the visitor (Chatwoot's logout): the widget closes, the site's `cw_conversation` and
     * `cw_user_…` cookies go, and the chat page reloads without a token, so the service makes a new
     * contact with no history. The user given to `setUser` is forgotten too (Chatwoot would send it
     * again to the new visitor).
     */
    reset() {
      if (this.isOpen) this.toggle('close');
      setCookie(AUTH);
      setCookie(userCookie());
      this.identifier = this.user = undefined;
      this.hasLoaded = loaded = false;
      this.resetTriggered = true;
      queue = [];
      unread = 0;
      drawBadge();
      card?.remove();
      if (frame) frame.src = frameUrl();
      sendUrl();
    },
  };
}

window.chatwootSDK = {
  run({ websiteToken: token, baseUrl: base }) {
    if (window.$chatwoot?.websiteToken) return;
    websiteToken = token;
    baseUrl = (base || new URL((document.currentScript as HTMLScriptElement | null)?.src ?? location.href).origin).replace(/\/+$/, '');
    origin = new URL(baseUrl, location.href).origin;
    // A visitor of an earlier version of this loader kept its token in localStorage: it moves to the cookie.
    const old = store.get(tokenKey(token));
    if (old) {
      if (!getCookie(AUTH)) setCookie(AUTH, old);
      store.set(tokenKey(token), undefined);
    }
    window.$chatwoot = makeApi(token, baseUrl);
    txt = LOADER[localeOf(window.$chatwoot.locale)];
    window.addEventListener('message', onFrameMessage);
    if (document.body) mount();
    else document.addEventListener('DOMContentLoaded', mount);
  },
};
