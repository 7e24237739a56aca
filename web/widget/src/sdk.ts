import { decode, encode, tokenKey, type FromChat, type ToChat } from './protocol.ts';
import { store } from './storage.ts';
import { LOADER, localeOf } from './i18n.ts';

// The loader (`/packs/js/sdk.js`): the page calls `window.chatwootSDK.run({websiteToken, baseUrl})`
// (Chatwoot's snippet); this draws the launcher bubble and the chat page's iframe, and gives the page
// `window.$chatwoot`. Commands given before the chat page has loaded wait for it.

interface Settings {
  position?: 'left' | 'right';
  locale?: string;
  darkMode?: 'light' | 'auto' | 'dark';
  hideMessageBubble?: boolean;
  launcherTitle?: string;
  type?: 'standard' | 'expanded_bubble';
}

declare global {
  interface Window {
    chatwootSDK: { run: (o: { websiteToken: string; baseUrl?: string }) => void };
    chatwootSettings?: Settings;
    $chatwoot?: ReturnType<typeof makeApi>;
  }
}

const CSS = `.cw-launcher{position:fixed;bottom:20px;z-index:2147483000;width:60px;height:60px;border-radius:50%;border:0;cursor:pointer;color:#fff;box-shadow:0 4px 16px rgba(0,0,0,.2);display:flex;align-items:center;justify-content:center;transition:transform .15s}
.cw-launcher:hover{transform:scale(1.05)}.cw-launcher.cw-wide{width:auto;border-radius:30px;padding:0 20px;gap:8px;font:600 15px system-ui,sans-serif}
.cw-badge{position:absolute;top:-4px;right:-4px;min-width:22px;height:22px;padding:0 6px;border-radius:11px;background:#e5484d;color:#fff;font:700 12px/22px system-ui,sans-serif}
.cw-frame{position:fixed;bottom:92px;z-index:2147483000;width:400px;height:min(640px,calc(100vh - 112px));border:0;border-radius:16px;box-shadow:0 8px 40px rgba(0,0,0,.18);background:#fff;transition:opacity .15s,transform .15s}
.cw-frame.cw-hidden{opacity:0;transform:translateY(12px);pointer-events:none;visibility:hidden}
.cw-campaign{position:fixed;bottom:92px;z-index:2147483000;max-width:300px;padding:12px 14px;border:0;border-radius:12px;background:#fff;color:#1f2d3d;box-shadow:0 4px 20px rgba(0,0,0,.18);font:14px/1.4 system-ui,sans-serif;text-align:left;cursor:pointer}
.cw-campaign b{display:block;margin-bottom:4px}
@media (max-width:480px){.cw-frame{width:100vw;height:100%;bottom:0;border-radius:0;left:0!important;right:0!important}}`;

const BUBBLE =
  '<svg viewBox="0 0 24 24" width="28" height="28" aria-hidden="true"><path fill="currentColor" d="M12 3C6.5 3 2 6.9 2 11.7c0 2.4 1.1 4.6 3 6.2L4 22l4.5-2.3c1.1.3 2.3.5 3.5.5 5.5 0 10-3.9 10-8.6S17.5 3 12 3z"/></svg>';
const CLOSE =
  '<svg viewBox="0 0 24 24" width="24" height="24" aria-hidden="true"><path stroke="currentColor" stroke-width="2.5" stroke-linecap="round" d="M6 6l12 12M18 6 6 18"/></svg>';

let frame: HTMLIFrameElement | undefined;
let launcher: HTMLButtonElement | undefined;
let badge: HTMLSpanElement | undefined;
let card: HTMLButtonElement | undefined;
let loaded = false;
let queue: ToChat[] = [];
let origin = '';
let websiteToken = '';
let baseUrl = '';

const settings = (): Settings => window.chatwootSettings ?? {};
/** The loader's words, in the locale of the settings or of `setLocale`. */
let txt = LOADER[localeOf(window.chatwootSettings?.locale)];
let unread = 0;

function post(m: ToChat) {
  if (!loaded || !frame?.contentWindow) queue.push(m);
  else frame.contentWindow.postMessage(encode(m), origin);
}

function setOpen(open: boolean) {
  if (!frame || !launcher) return;
  const api = window.$chatwoot!;
  api.isOpen = open;
  frame.classList.toggle('cw-hidden', !open);
  launcher.setAttribute('aria-expanded', String(open));
  launcher.setAttribute('aria-label', open ? txt.close : txt.open);
  drawLauncher(open);
  if (open) card?.remove();
  post({ event: 'toggle-open', isOpen: open });
}

function drawLauncher(open: boolean) {
  if (!launcher) return;
  const wide = settings().type === 'expanded_bubble' && !open;
  launcher.classList.toggle('cw-wide', wide);
  launcher.innerHTML = open ? CLOSE : BUBBLE + (wide ? `<span>${escapeHtml(settings().launcherTitle || txt.chatWithUs)}</span>` : '');
  if (badge) launcher.append(badge);
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function onFrameMessage(e: MessageEvent) {
  if (e.origin !== origin || e.source !== frame?.contentWindow) return;
  const m = decode<FromChat>(e.data);
  if (!m) return;
  const api = window.$chatwoot!;
  switch (m.event) {
    case 'loaded':
      loaded = true;
      api.hasLoaded = true;
      store.set(tokenKey(websiteToken), m.config.authToken);
      if (launcher) launcher.style.background = m.config.channelConfig.widget_color || '#1f93ff';
      for (const q of queue.splice(0)) post(q);
      post({ event: 'toggle-open', isOpen: api.isOpen });
      window.dispatchEvent(new CustomEvent('chatwoot:ready'));
      return;
    case 'setAuthCookie':
      store.set(tokenKey(websiteToken), m.data.widgetAuthToken);
      return;
    case 'setUnreadMode':
      if (!badge) return;
      unread = m.unreadMessageCount;
      drawBadge();
      return;
    case 'campaign':
      showCard(m.message, m.senderName);
      return;
    case 'campaignDone':
      card?.remove();
      return;
    case 'onMessage':
      window.dispatchEvent(new CustomEvent('chatwoot:on-message', { detail: m.data }));
      return;
    case 'toggleBubble':
    case 'closeWindow':
      setOpen(m.event === 'toggleBubble' ? !api.isOpen : false);
      return;
  }
}

function drawBadge() {
  if (!badge) return;
  badge.textContent = unread > 9 ? '9+' : String(unread);
  badge.hidden = unread === 0 || !!window.$chatwoot?.isOpen;
  badge.setAttribute('aria-label', txt.unread.replace('{n}', String(unread)));
}

/** A campaign's message above the launcher; a click opens the chat (which runs the campaign). */
function showCard(message: string, sender: string | null) {
  card?.remove();
  card = document.createElement('button');
  card.type = 'button';
  card.className = 'cw-campaign';
  card.style[settings().position === 'left' ? 'left' : 'right'] = '20px';
  card.setAttribute('aria-label', `${sender ? txt.from.replace('{name}', sender) : ''} ${message}`.trim());
  if (sender) card.append(Object.assign(document.createElement('b'), { textContent: sender }));
  card.append(message);
  card.onclick = () => setOpen(true);
  document.body.append(card);
}

/** The host page's address, for campaign rules (again on in-page navigation). */
const sendUrl = () => post({ event: 'change-url', referrerURL: location.href });

function frameUrl() {
  const q = new URLSearchParams({ website_token: websiteToken });
  const s = settings();
  if (s.locale) q.set('locale', s.locale);
  if (s.darkMode) q.set('dark_mode', s.darkMode);
  const token = store.get(tokenKey(websiteToken));
  if (token) q.set('cw_conversation', token);
  return `${baseUrl}/widget?${q}`;
}

function mount() {
  const style = document.createElement('style');
  style.textContent = CSS;
  document.head.append(style);
  const side = settings().position === 'left' ? 'left' : 'right';

  frame = document.createElement('iframe');
  frame.className = 'cw-frame cw-hidden';
  frame.title = 'Chat window';
  frame.allow = 'clipboard-write';
  frame.style[side] = '20px';
  frame.src = frameUrl();

  launcher = document.createElement('button');
  launcher.type = 'button';
  launcher.className = 'cw-launcher';
  launcher.style[side] = '20px';
  launcher.style.background = '#1f93ff';
  launcher.hidden = !!settings().hideMessageBubble;
  badge = document.createElement('span');
  badge.className = 'cw-badge';
  badge.hidden = true;
  launcher.onclick = () => setOpen(!window.$chatwoot!.isOpen);
  document.body.append(frame, launcher);
  setOpen(false);
  sendUrl();
  window.addEventListener('popstate', sendUrl);
  window.addEventListener('hashchange', sendUrl);
}

function makeApi() {
  return {
    hasLoaded: false,
    isOpen: false,
    websiteToken: '',
    baseUrl: '',
    toggle(state?: 'open' | 'close') {
      setOpen(state === 'open' ? true : state === 'close' ? false : !this.isOpen);
    },
    toggleBubbleVisibility(visibility: 'show' | 'hide') {
      if (launcher) launcher.hidden = visibility === 'hide';
    },
    setUser(identifier: string, user: Record<string, unknown> = {}) {
      if (typeof identifier !== 'string' && typeof identifier !== 'number') throw new Error('setUser needs an identifier');
      post({ event: 'set-user', identifier: String(identifier), user });
    },
    setCustomAttributes(customAttributes: Record<string, unknown>) {
      post({ event: 'set-custom-attributes', customAttributes });
    },
    deleteCustomAttribute(customAttribute: string) {
      post({ event: 'delete-custom-attribute', customAttribute });
    },
    setConversationCustomAttributes(customAttributes: Record<string, unknown>) {
      post({ event: 'set-conversation-custom-attributes', customAttributes });
    },
    deleteConversationCustomAttribute(customAttribute: string) {
      post({ event: 'delete-conversation-custom-attribute', customAttribute });
    },
    setLabel(label: string) {
      post({ event: 'set-label', label });
    },
    removeLabel(label: string) {
      post({ event: 'remove-label', label });
    },
    setLocale(locale: string) {
      txt = LOADER[localeOf(locale)];
      launcher?.setAttribute('aria-label', this.isOpen ? txt.close : txt.open);
      drawLauncher(this.isOpen);
      drawBadge();
      post({ event: 'set-locale', locale });
    },
    setColorScheme(darkMode: 'light' | 'auto' | 'dark') {
      post({ event: 'set-color-scheme', darkMode });
    },
    /** Forgets the visitor: the next chat is a new contact. */
    reset() {
      store.set(tokenKey(websiteToken), undefined);
      loaded = false;
      queue = [];
      this.hasLoaded = false;
      setOpen(false);
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
    window.$chatwoot = Object.assign(makeApi(), { websiteToken: token, baseUrl });
    window.addEventListener('message', onFrameMessage);
    if (document.body) mount();
    else document.addEventListener('DOMContentLoaded', mount);
  },
};
