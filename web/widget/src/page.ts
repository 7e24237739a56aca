import { WidgetApi } from './api.ts';
import { encode, tokenKey, type FromChat } from './protocol.ts';
import { store } from './storage.ts';

// The chat page (`GET /widget?website_token=…`): inside the loader's iframe, or loaded directly by a
// mobile app's webview, which drives it with the same `chatwoot-widget:` messages.

export const params = new URLSearchParams(location.search);
const websiteToken = params.get('website_token') ?? '';
export const embedded = window.parent !== window;

export const api = new WidgetApi(
  location.origin,
  websiteToken,
  params.get('cw_conversation') || store.get(tokenKey(websiteToken)),
  params.get('locale') ?? undefined,
);

export const toParent = (m: FromChat) => embedded && window.parent.postMessage(encode(m), '*');

export function saveToken(token: string) {
  api.authToken = token;
  store.set(tokenKey(websiteToken), token);
  toParent({ event: 'setAuthCookie', data: { widgetAuthToken: token } });
}
