import { WidgetApi } from './api.ts';
import { encode, tokenKey, type FromChat, type SdkEvent } from './protocol.ts';
import { store } from './storage.ts';

// The chat page (`GET /widget?website_token=…`): inside the loader's iframe, or loaded directly by a
// mobile app's webview, which drives it with the same `chatwoot-widget:` messages. Inside the loader the
// visitor is the one its `cw_conversation` names (the host site's cookie), or a new one: the page keeps no
// token of its own there, so the loader's `reset()` really starts afresh. Opened on its own, the page
// keeps its visitor's token in its storage.

export const params = new URLSearchParams(location.search);
const websiteToken = params.get('website_token') ?? '';
export const embedded = window.parent !== window;

export const api = new WidgetApi(
  location.origin,
  websiteToken,
  params.get('cw_conversation') || (embedded ? undefined : store.get(tokenKey(websiteToken))),
  params.get('locale') ?? undefined,
);

export const toParent = (m: FromChat) => embedded && window.parent.postMessage(encode(m), '*');

/** A Chatwoot window event on the host page (`chatwoot:on-message`, …), through the loader. */
export const raise = (eventIdentifier: SdkEvent, data: unknown) => toParent({ event: 'onEvent', eventIdentifier, data });

export function saveToken(token: string) {
  api.authToken = token;
  if (!embedded) store.set(tokenKey(websiteToken), token);
  toParent({ event: 'setAuthCookie', data: { widgetAuthToken: token } });
}
